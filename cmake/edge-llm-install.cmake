# Install rules and CMake package of the standalone build (doc/edge-llm-user.rst, "Installing, and your own program").
#
#   cmake --install build [--prefix DIR]      (default prefix: CMAKE_INSTALL_PREFIX)
#
# installs, under the prefix:
#   lib/libns3-edge-llm.so.X.Y.Z       the module, SONAME libns3-edge-llm.so.X.Y, with the
#   lib/libns3-edge-llm.so.X.Y         usual symlinks (one ABI per minor release, as ns-3's
#   lib/libns3-edge-llm.so             libraries are one ABI per release)
#   include/ns3/*.h                    the public headers, #include "ns3/edge-llm-helper.h"
#                                      (the internal ones, CMakeLists.txt's private_header_files, not)
#                                      as in ns-3, and the module header edge-llm-module.h
#   bin/edge-llm-plan, ctho-figures, impactho-figures, edge-llm-lte-handover,
#   edge-llm-backhaul-study, edge-llm-campaign, edge-llm-pre-transfer, edge-llm-serving-study
#   lib/cmake/edge-llm/                the CMake package: imported target edge-llm::edge-llm
#
# so that a user's own CMakeLists.txt needs only
#   find_package(edge-llm 0.8 REQUIRED)
#   target_link_libraries(app PRIVATE edge-llm::edge-llm)
# (the target brings the include directory, C++17, the compile definitions the module was
# built with, and its link dependencies: ns-3's modules, nlohmann_json, GSL).  Tests,
# benchmarks, the fuzz target and the GoogleTest binary are not installed.
#
# Included at the end of the top CMakeLists.txt in standalone mode, once every target exists.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(EDGE_LLM_LIBRARY_TARGET ns3-edge-llm)
set(EDGE_LLM_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/edge-llm)

# The version is the first line of VERSION at the top of the module (MAJOR.MINOR.PATCH,
# anything after it such as "-rc1" is ignored); 0.0.0 if there is no such file.
set(EDGE_LLM_PACKAGE_VERSION 0.0.0)
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/VERSION)
  file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/VERSION version_line LIMIT_COUNT 1)
  string(STRIP "${version_line}" version_line)
  if(NOT version_line MATCHES "^([0-9]+)\\.([0-9]+)\\.([0-9]+)")
    message(FATAL_ERROR "VERSION: the first line is '${version_line}'; "
                        "it must start with MAJOR.MINOR.PATCH (e.g. 0.8.0)")
  endif()
  set(EDGE_LLM_PACKAGE_VERSION ${CMAKE_MATCH_1}.${CMAKE_MATCH_2}.${CMAKE_MATCH_3})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                                         ${CMAKE_CURRENT_SOURCE_DIR}/VERSION)
endif()
string(REGEX MATCH "^[0-9]+\\.[0-9]+" EDGE_LLM_SOVERSION ${EDGE_LLM_PACKAGE_VERSION})

# The library: versioned file name and SONAME; the export name gives edge-llm::edge-llm.
# Installed programs find it through a relative RUNPATH ($ORIGIN/../lib), so the prefix
# can be moved; INSTALL_RPATH_USE_LINK_PATH adds the directory of an ns-3 installed outside
# the system's library directories (none for Debian's libns3-dev).
file(RELATIVE_PATH bin_to_lib /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${CMAKE_INSTALL_LIBDIR})
set_target_properties(
  ${EDGE_LLM_LIBRARY_TARGET}
  PROPERTIES VERSION ${EDGE_LLM_PACKAGE_VERSION}
             SOVERSION ${EDGE_LLM_SOVERSION}
             EXPORT_NAME edge-llm
             INSTALL_RPATH_USE_LINK_PATH ON)
# ns3-standalone.cmake points the include directory at build/include; the installed
# target points at <prefix>/include instead (headers as "ns3/<name>.h").
set_property(
  TARGET ${EDGE_LLM_LIBRARY_TARGET}
  PROPERTY INTERFACE_INCLUDE_DIRECTORIES $<BUILD_INTERFACE:${EDGE_LLM_INCLUDE_DIR}>
           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# ns-3's headers need C++17; say so, so that users need not set CMAKE_CXX_STANDARD.
target_compile_features(${EDGE_LLM_LIBRARY_TARGET} PUBLIC cxx_std_17)

# Compile definitions: like ns-3's own exported modules (ns-3 >= 3.38), users get the
# definitions the module was compiled with (NS3_LOG_ENABLE and NS3_ASSERT_ENABLE in a Debug
# build or with EDGE_LLM_ENABLE_ASSERTS), so NS_LOG/NS_ASSERT behave alike on both sides.
# A "$<$<CONFIG:X>:DEF>" entry is resolved here for this build's CMAKE_BUILD_TYPE: the
# installed library has one configuration, whatever the user's own build type is.
get_directory_property(directory_definitions COMPILE_DEFINITIONS)
get_target_property(target_definitions ${EDGE_LLM_LIBRARY_TARGET} COMPILE_DEFINITIONS)
if(NOT target_definitions)
  set(target_definitions)
endif()
set(EDGE_LLM_EXPORTED_DEFINITIONS)
foreach(definition ${directory_definitions} ${target_definitions})
  if(definition MATCHES "^\\$<\\$<CONFIG:([^>]+)>:(.+)>$")
    set(wanted_definition ${CMAKE_MATCH_2})
    string(TOUPPER "${CMAKE_MATCH_1}" wanted_config)
    string(TOUPPER "${CMAKE_BUILD_TYPE}" build_config)
    if(wanted_config STREQUAL build_config)
      list(APPEND EDGE_LLM_EXPORTED_DEFINITIONS ${wanted_definition})
    endif()
  elseif(definition MATCHES "\\$<")
    message(FATAL_ERROR "edge-llm-install.cmake: cannot export the compile definition "
                        "'${definition}' (only $<$<CONFIG:X>:DEF> expressions are resolved)")
  else()
    list(APPEND EDGE_LLM_EXPORTED_DEFINITIONS ${definition})
  endif()
endforeach()
list(REMOVE_DUPLICATES EDGE_LLM_EXPORTED_DEFINITIONS)
# Those the target already gives its users (EDGE_LLM_NS3_VERSION, cmake/edge-llm-version.cmake)
# are not repeated.
get_target_property(interface_definitions ${EDGE_LLM_LIBRARY_TARGET} INTERFACE_COMPILE_DEFINITIONS)
if(interface_definitions)
  list(REMOVE_ITEM EDGE_LLM_EXPORTED_DEFINITIONS ${interface_definitions})
endif()
foreach(definition ${EDGE_LLM_EXPORTED_DEFINITIONS})
  target_compile_definitions(${EDGE_LLM_LIBRARY_TARGET}
                             INTERFACE $<INSTALL_INTERFACE:${definition}>)
endforeach()
# A sanitized library needs the sanitizer runtimes in the user's program too.
if(EDGE_LLM_SANITIZE)
  target_link_options(${EDGE_LLM_LIBRARY_TARGET} INTERFACE
                      $<INSTALL_INTERFACE:-fsanitize=address,undefined>)
endif()

install(
  TARGETS ${EDGE_LLM_LIBRARY_TARGET}
  EXPORT edge-llm-targets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The module's public headers and the generated edge-llm-module.h (build_lib() copied them
# to build/include/ns3 beside the internal ones, which are not installed).
install(FILES ${EDGE_LLM_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ns3)

# The user-facing programs of examples/ (not the test, benchmark and fuzz programs).
set(EDGE_LLM_INSTALLED_PROGRAMS
    edge-llm-plan
    ctho-figures
    impactho-figures
    edge-llm-lte-handover
    edge-llm-backhaul-study
    edge-llm-campaign
    edge-llm-pre-transfer
    edge-llm-serving-study)
foreach(program ${EDGE_LLM_INSTALLED_PROGRAMS})
  if(NOT TARGET ${program})
    message(FATAL_ERROR "edge-llm-install.cmake: program target '${program}' does not exist")
  endif()
  set_target_properties(${program} PROPERTIES INSTALL_RPATH "$ORIGIN/${bin_to_lib}"
                                              INSTALL_RPATH_USE_LINK_PATH ON)
endforeach()
install(TARGETS ${EDGE_LLM_INSTALLED_PROGRAMS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The CMake package.  ns3_VERSION is the ns-3 this library was built against: ns-3's package
# accepts only its exact version, which is what a library linked to libns3-*.so.<release>
# needs anyway.
install(
  EXPORT edge-llm-targets
  NAMESPACE edge-llm::
  FILE edge-llm-targets.cmake
  DESTINATION ${EDGE_LLM_PACKAGE_DIR})
set(EDGE_LLM_NS3_PACKAGE_VERSION ${ns3_VERSION})
configure_package_config_file(
  ${CMAKE_CURRENT_SOURCE_DIR}/cmake/edge-llm-config.cmake.in
  ${CMAKE_BINARY_DIR}/package/edge-llm-config.cmake
  INSTALL_DESTINATION ${EDGE_LLM_PACKAGE_DIR}
  NO_SET_AND_CHECK_MACRO)
# find_package(edge-llm 0.3) accepts any installed 0.x.y >= 0.3 (same major version).
write_basic_package_version_file(
  ${CMAKE_BINARY_DIR}/package/edge-llm-config-version.cmake
  VERSION ${EDGE_LLM_PACKAGE_VERSION}
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/edge-llm-config.cmake
              ${CMAKE_BINARY_DIR}/package/edge-llm-config-version.cmake
        DESTINATION ${EDGE_LLM_PACKAGE_DIR})

# The ctest: install this build into a temporary prefix, build test/install/ against it
# with find_package(edge-llm), run the user program and check its output.
add_test(NAME install-find-package
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test/install/install-test.sh ${CMAKE_BINARY_DIR}
                 ${CMAKE_CURRENT_SOURCE_DIR}/test/install ${EDGE_LLM_PACKAGE_VERSION})
set_tests_properties(install-find-package PROPERTIES LABELS install TIMEOUT 180)
