# Standalone build of the edge-llm module against an installed ns-3.
#
# Provides the two macros an ns-3 module's CMakeLists.txt uses, build_lib() and
# build_lib_example(), with ns-3's argument names, so the module's own
# CMakeLists.txt is the same in both build modes.  Also: the ${libX} variables of
# ns-3 (mapped to the imported targets of ns-3 < 3.43, ns3::libcore, and >= 3.43,
# ns3::core), a test-runner built from ns3::TestRunner::Run with one ctest test per
# TestSuite, GoogleTest and Google Benchmark targets.

include(CTest)

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
set(CMAKE_LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)

find_program(EDGE_LLM_CCACHE ccache)
if(EDGE_LLM_CCACHE)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${EDGE_LLM_CCACHE})
endif()

# The package's version file demands an exact match: ask for no version.
find_package(ns3 REQUIRED)

# The installed package exports no compile definitions: logging and asserts are
# compiled in for Debug builds only, as ns-3 itself does.
option(EDGE_LLM_ENABLE_ASSERTS "Compile NS_ASSERT and NS_LOG in every build type" OFF)
add_compile_definitions($<$<CONFIG:Debug>:NS3_LOG_ENABLE>
                        $<$<CONFIG:Debug>:NS3_ASSERT_ENABLE>)
if(EDGE_LLM_ENABLE_ASSERTS)
  add_compile_definitions(NS3_LOG_ENABLE NS3_ASSERT_ENABLE)
endif()

option(EDGE_LLM_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
if(EDGE_LLM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

foreach(
  module
  core
  network
  internet
  point-to-point
  applications
  mobility
  lte
  stats
  config-store
  antenna
  spectrum
  propagation
  buildings
  fd-net-device
  virtual-net-device
  flow-monitor
  traffic-control
  topology-read
)
  if(TARGET ns3::lib${module})
    set(lib${module} ns3::lib${module})
  elseif(TARGET ns3::${module})
    set(lib${module} ns3::${module})
  endif()
endforeach()
if(NOT libcore)
  message(FATAL_ERROR "find_package(ns3) found no core target (ns3::libcore or ns3::core)")
endif()

# Headers are included as "ns3/<name>.h", as inside ns-3.
set(EDGE_LLM_INCLUDE_DIR ${CMAKE_BINARY_DIR}/include)
file(MAKE_DIRECTORY ${EDGE_LLM_INCLUDE_DIR}/ns3)

function(build_lib)
  cmake_parse_arguments(
    BLIB "" "LIBNAME"
    "SOURCE_FILES;HEADER_FILES;PRIVATE_HEADER_FILES;LIBRARIES_TO_LINK;TEST_SOURCES" ${ARGN})
  set(target ns3-${BLIB_LIBNAME})
  set(module_header ${EDGE_LLM_INCLUDE_DIR}/ns3/${BLIB_LIBNAME}-module.h)
  set(module_text "// Generated: includes every public header of the ${BLIB_LIBNAME} module.\n")
  foreach(header ${BLIB_HEADER_FILES})
    get_filename_component(name ${header} NAME)
    configure_file(${CMAKE_CURRENT_SOURCE_DIR}/${header} ${EDGE_LLM_INCLUDE_DIR}/ns3/${name}
                   COPYONLY)
    string(APPEND module_text "#include \"ns3/${name}\"\n")
  endforeach()
  file(WRITE ${module_header}.tmp "${module_text}")
  configure_file(${module_header}.tmp ${module_header} COPYONLY)
  # Internal headers: beside the public ones for the module's sources and tests, but
  # neither in the module header nor installed (EDGE_LLM_PUBLIC_HEADERS is what
  # cmake/edge-llm-install.cmake installs).
  set(public_headers ${module_header})
  foreach(header ${BLIB_HEADER_FILES})
    get_filename_component(name ${header} NAME)
    list(APPEND public_headers ${EDGE_LLM_INCLUDE_DIR}/ns3/${name})
  endforeach()
  set(EDGE_LLM_PUBLIC_HEADERS ${public_headers} PARENT_SCOPE)
  foreach(header ${BLIB_PRIVATE_HEADER_FILES})
    get_filename_component(name ${header} NAME)
    configure_file(${CMAKE_CURRENT_SOURCE_DIR}/${header} ${EDGE_LLM_INCLUDE_DIR}/ns3/${name}
                   COPYONLY)
  endforeach()
  # Every header compiles alone (include-what-you-use discipline).
  set(self_contained ${BLIB_HEADER_FILES} ${BLIB_PRIVATE_HEADER_FILES})
  list(TRANSFORM self_contained PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  add_test(NAME header-self-contained
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test/cli/header-self-contained-test.sh
                   ${CMAKE_CXX_COMPILER} ${EDGE_LLM_INCLUDE_DIR} ${self_contained})
  set_tests_properties(header-self-contained PROPERTIES LABELS quick)

  add_library(${target} SHARED ${BLIB_SOURCE_FILES})
  target_include_directories(${target} PUBLIC ${EDGE_LLM_INCLUDE_DIR})
  target_link_libraries(${target} PUBLIC ${BLIB_LIBRARIES_TO_LINK})
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  set(lib${BLIB_LIBNAME} ${target} PARENT_SCOPE)

  if(BLIB_TEST_SOURCES)
    add_executable(${BLIB_LIBNAME}-test-runner ${CMAKE_CURRENT_SOURCE_DIR}/test/test-runner.cc
                                               ${BLIB_TEST_SOURCES})
    target_link_libraries(${BLIB_LIBNAME}-test-runner PRIVATE ${target})
    # Every suite runs under LeakSanitizer (issue 5: the 200-session fault test is
    # leak-free). LSan only replaces the allocator, so linking with it is enough.
    target_link_options(${BLIB_LIBNAME}-test-runner PRIVATE -fsanitize=leak)
    # One ctest test per TestSuite, named after the suite, at QUICK (every case under
    # 30 s). A suite with EXTENSIVE cases gets a second test, ns3-SUITE-extensive, labelled
    # "extensive": scripts/test.sh leaves it out, `scripts/test.sh --extensive` and CI run
    # it (EXTENSIVE includes the QUICK cases, which are short).
    foreach(source ${BLIB_TEST_SOURCES})
      file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/${source} lines REGEX "TestSuite\\(\"[^\"]+\"")
      file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/${source} extensive REGEX "EDGE_LLM_TEST_EXTENSIVE")
      foreach(line ${lines})
        string(REGEX MATCH "TestSuite\\(\"([^\"]+)\"" unused "${line}")
        set(suite ${CMAKE_MATCH_1})
        add_test(NAME ns3-${suite}
                 COMMAND ${BLIB_LIBNAME}-test-runner --suite=${suite} --fullness=QUICK
                 WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
        # 150 s alone for the slowest suite (edge-llm-backhaul-study); more than twice that
        # when other builds share the machine's cores.
        set_tests_properties(ns3-${suite} PROPERTIES LABELS "quick;ns3" TIMEOUT 900)
        if(extensive)
          add_test(NAME ns3-${suite}-extensive
                   COMMAND ${BLIB_LIBNAME}-test-runner --suite=${suite} --fullness=EXTENSIVE
                   WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
          set_tests_properties(ns3-${suite}-extensive PROPERTIES LABELS "extensive;ns3"
                                                                 TIMEOUT 1800)
        endif()
      endforeach()
    endforeach()
  endif()
endfunction()

# gperftools' tcmalloc_minimal (Debian's libtcmalloc-minimal4) for the programs: a
# packet-level run spends about a quarter of its CPU in glibc's malloc and free (packets,
# spectrum values, events); tcmalloc cut the 350-UE backhaul study's CPU by 25 % with
# byte-identical outputs. Not for the test runner (LeakSanitizer brings its own allocator).
option(EDGE_LLM_TCMALLOC "Link the examples and benchmarks with tcmalloc_minimal if found" ON)
if(EDGE_LLM_TCMALLOC)
  find_library(EDGE_LLM_TCMALLOC_LIBRARY NAMES tcmalloc_minimal libtcmalloc_minimal.so.4)
endif()
if(EDGE_LLM_TCMALLOC AND EDGE_LLM_TCMALLOC_LIBRARY)
  message(STATUS "edge-llm: programs use tcmalloc (${EDGE_LLM_TCMALLOC_LIBRARY})")
else()
  message(STATUS "edge-llm: programs use glibc's malloc (no libtcmalloc-minimal4, or "
                 "EDGE_LLM_TCMALLOC=OFF)")
endif()

# Links \p target with tcmalloc (above), first among its libraries.
function(edge_llm_use_tcmalloc target)
  if(EDGE_LLM_TCMALLOC AND EDGE_LLM_TCMALLOC_LIBRARY)
    target_link_libraries(${target} PRIVATE "-Wl,--push-state,--no-as-needed"
                                            ${EDGE_LLM_TCMALLOC_LIBRARY} "-Wl,--pop-state")
  endif()
endfunction()

function(build_lib_example)
  cmake_parse_arguments(BLIB_EXAMPLE "" "NAME" "SOURCE_FILES;LIBRARIES_TO_LINK" ${ARGN})
  add_executable(${BLIB_EXAMPLE_NAME} ${BLIB_EXAMPLE_SOURCE_FILES})
  edge_llm_use_tcmalloc(${BLIB_EXAMPLE_NAME})
  target_link_libraries(${BLIB_EXAMPLE_NAME} PRIVATE ${BLIB_EXAMPLE_LIBRARIES_TO_LINK})
endfunction()

function(edge_llm_add_gtests)
  find_package(GTest REQUIRED)
  file(GLOB gtest_sources ${CMAKE_SOURCE_DIR}/test/gtest/*.cc)
  # edge-llm-plan's body and the programs' option checks are examples' sources.
  add_executable(edge-llm-gtest ${gtest_sources} ${CMAKE_SOURCE_DIR}/examples/plan/edge-llm-plan-cli.cc
                                ${CMAKE_SOURCE_DIR}/examples/common/program-options.cc)
  target_link_libraries(edge-llm-gtest PRIVATE ns3-edge-llm edge-llm-studies GTest::gtest
                                              GTest::gtest_main)
  target_compile_definitions(edge-llm-gtest
                             PRIVATE EDGE_LLM_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                                     EDGE_LLM_BIN_DIR="${CMAKE_BINARY_DIR}/bin")
  # One ctest test per GoogleTest suite (gtest-SUITE), all its cases in one process: the
  # 570 cases take under a second together, against minutes as one process each.
  set(gtest_suites "")
  foreach(source ${gtest_sources})
    file(STRINGS ${source} lines REGEX "^TEST(_F|_P)?\\([A-Za-z0-9_]+,")
    foreach(line ${lines})
      string(REGEX MATCH "^TEST(_F|_P)?\\(([A-Za-z0-9_]+)," unused "${line}")
      list(APPEND gtest_suites ${CMAKE_MATCH_2})
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES gtest_suites)
  foreach(suite ${gtest_suites})
    # *SUITE.* also matches a parameterized suite's instantiations (Seeds/SUITE.Case/7).
    add_test(NAME gtest-${suite} COMMAND edge-llm-gtest --gtest_filter=*${suite}.*
                                         --gtest_brief=1)
    set_tests_properties(gtest-${suite} PROPERTIES LABELS "quick;gtest"
                                                   FAIL_REGULAR_EXPRESSION "\\] 0 tests from")
  endforeach()
  # The CLI contract (exit codes, stdout/stderr) is checked on the real binary.
  # House style: ns-3's .clang-format over every C++ file of the module.
  find_program(EDGE_LLM_CLANG_FORMAT NAMES clang-format clang-format-14 REQUIRED)
  file(GLOB_RECURSE format_sources ${CMAKE_SOURCE_DIR}/model/*.[ch]
       ${CMAKE_SOURCE_DIR}/model/*.cc ${CMAKE_SOURCE_DIR}/helper/*.h ${CMAKE_SOURCE_DIR}/helper/*.cc
       ${CMAKE_SOURCE_DIR}/examples/*.cc ${CMAKE_SOURCE_DIR}/examples/*.h
       ${CMAKE_SOURCE_DIR}/tools/*.cc ${CMAKE_SOURCE_DIR}/test/*.h ${CMAKE_SOURCE_DIR}/test/*.cc
       ${CMAKE_SOURCE_DIR}/test/gtest/*.cc ${CMAKE_SOURCE_DIR}/test/probe/*.cc
       ${CMAKE_SOURCE_DIR}/benchmarks/*.cc
       ${CMAKE_SOURCE_DIR}/benchmarks/*.h ${CMAKE_SOURCE_DIR}/fuzz/*.cc)
  add_test(NAME clang-format COMMAND ${EDGE_LLM_CLANG_FORMAT} --dry-run -Werror ${format_sources}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  add_test(NAME wireshark-dissector
           COMMAND bash ${CMAKE_SOURCE_DIR}/test/cli/kv-dissector-test.sh
                   $<TARGET_FILE:edge-llm-test-runner> ${CMAKE_SOURCE_DIR})
  # The frame parser under libFuzzer with ASan and UBSan, briefly (doc: a longer run).
  add_test(NAME fuzz-kv-frames COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/fuzz.sh 20
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  # Bad configuration given straight to the API must abort naming the field.
  add_executable(edge-llm-fatal-probe ${CMAKE_SOURCE_DIR}/test/probe/edge-llm-fatal-probe.cc)
  target_link_libraries(edge-llm-fatal-probe PRIVATE ns3-edge-llm)
  add_test(NAME cli-bad-input
           COMMAND bash ${CMAKE_SOURCE_DIR}/test/cli/bad-input-test.sh ${CMAKE_BINARY_DIR}/bin)
  # Edge LLMs added to an existing LTE script in one call; each forgotten step-by-step call
  # refused naming it (issue 45, point 4).
  add_test(NAME cli-existing-script
           COMMAND bash ${CMAKE_SOURCE_DIR}/test/cli/existing-script-test.sh ${CMAKE_BINARY_DIR}/bin)
  set_tests_properties(cli-existing-script PROPERTIES LABELS quick TIMEOUT 900)
  # SUMO's vehicles end to end (issue 45, point 3): needs SUMO (scripts/test.sh --extensive
  # installs it).
  add_test(NAME cli-sumo-city
           COMMAND bash ${CMAKE_SOURCE_DIR}/test/cli/sumo-city-test.sh ${CMAKE_BINARY_DIR}/bin)
  set_tests_properties(cli-sumo-city PROPERTIES LABELS extensive TIMEOUT 3600)
  # The serving study on the shipped Azure excerpt and its refusals (issue 46).
  add_test(NAME cli-serving-study
           COMMAND bash ${CMAKE_SOURCE_DIR}/test/cli/serving-study-test.sh ${CMAKE_BINARY_DIR}/bin
                   ${CMAKE_SOURCE_DIR})
  add_test(NAME cli-impactho-figures
           COMMAND bash ${CMAKE_SOURCE_DIR}/test/cli/impactho-figures-test.sh ${CMAKE_BINARY_DIR}/bin)
  add_test(NAME cli-edge-llm-plan
           COMMAND bash ${CMAKE_SOURCE_DIR}/test/cli/edge-llm-plan-cli-test.sh
                   $<TARGET_FILE:edge-llm-plan> ${CMAKE_SOURCE_DIR}/test/cli)
  # Golden outputs (issue 21): the main job's, the backhaul study's and every figure's
  # stdout, CSVs and gnuplot scripts stay byte-identical on the recorded option sets.
  add_test(NAME cli-golden-outputs
           COMMAND bash ${CMAKE_SOURCE_DIR}/test/cli/golden-outputs-test.sh ${CMAKE_BINARY_DIR}/bin lte)
  set_tests_properties(cli-golden-outputs PROPERTIES LABELS "quick;golden" TIMEOUT 600)
  # Campaigns (edge-llm-campaign): the contract on a stand-in program, merged values by
  # hand; and against a real Slurm that the test starts and stops (as root; 21 s on an idle
  # 2-core machine, about 70 s under load).
  add_test(NAME cli-campaign COMMAND bash ${CMAKE_SOURCE_DIR}/test/cli/campaign-test.sh
                                     ${CMAKE_BINARY_DIR}/bin)
  set_tests_properties(cli-campaign PROPERTIES LABELS "quick;campaign" TIMEOUT 120)
  add_test(NAME campaign-slurm COMMAND bash ${CMAKE_SOURCE_DIR}/test/cli/campaign-slurm-test.sh
                                       ${CMAKE_BINARY_DIR}/bin)
  set_tests_properties(campaign-slurm PROPERTIES LABELS "quick;campaign;slurm" TIMEOUT 600
                                                 RUN_SERIAL ON)
  # doc/edge-llm.rst builds with ns-3's Sphinx settings, warnings as errors; formulas by
  # MathJax here (seconds), compiled by LaTeX when scripts/check-doc.sh runs by hand.
  add_test(NAME doc-sphinx COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/check-doc.sh)
  set_tests_properties(doc-sphinx PROPERTIES ENVIRONMENT EDGE_LLM_DOC_MATH=mathjax
                                             SKIP_RETURN_CODE 77)
endfunction()

function(edge_llm_add_benchmarks)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    message(STATUS "Google Benchmark not found: benchmarks are not built")
    return()
  endif()
  file(GLOB bench_sources ${CMAKE_SOURCE_DIR}/benchmarks/*.cc)
  foreach(source ${bench_sources})
    get_filename_component(name ${source} NAME_WE)
    add_executable(${name} ${source})
    edge_llm_use_tcmalloc(${name})
    if(name STREQUAL edge-llm-ctho-bench)
      # ctHO's figure driver is an example's source (examples/ctho-figures).
      target_sources(${name} PRIVATE ${CMAKE_SOURCE_DIR}/examples/ctho-figures/ctho-figures-study.cc)
    endif()
    # ns-3's topology-read and Debian's Google Benchmark both instantiate std::regex, built
    # by different compilers; whichever library the loader searches first serves both, and
    # benchmark's scanner rejects topology-read's static patterns at start-up
    # (std::regex_error "Invalid escape"). Naming topology-read before benchmark puts it
    # first in the program's search order (--no-as-needed: the program itself uses none of
    # its symbols, and the linker would otherwise drop it); the module, which links it, comes
    # before benchmark too (after the study library that needs the module: listed after it,
    # the module would follow benchmark, and so would topology-read).
    target_link_libraries(${name} PRIVATE edge-llm-studies ns3-edge-llm "-Wl,--push-state,--no-as-needed"
                                          ${libtopology-read} "-Wl,--pop-state" benchmark::benchmark)
    # Each benchmark program starts and lists its benchmarks (the regex clash above aborted
    # them all before main).
    file(READ ${source} text)
    string(FIND "${text}" "benchmark::Initialize" google)
    if(google EQUAL -1)
      add_test(NAME ${name}-starts COMMAND ${name} --PrintHelp) # ns-3 CommandLine programs
    else()
      add_test(NAME ${name}-starts COMMAND ${name} --benchmark_list_tests=true)
    endif()
    set_tests_properties(${name}-starts PROPERTIES LABELS quick)
  endforeach()
endfunction()
