# The ns-3 version the module is built against, and the module's warning flags.
#
# Included from CMakeLists.txt before build_lib(), in both build modes:
#  * EDGE_LLM_NS3_VERSION = 1000 * major + minor of ns-3 (ns-3.37: 3037, ns-3.46.1: 3046),
#    which model/edge-llm-compat.h keys every API difference on. Standalone: from the ns3
#    CMake package found (ns3_VERSION). In an ns-3 source tree: ns-3's NS3_VER, read by
#    ns-3 from the tree's VERSION file, else that file; a development tree ("3-dev") counts
#    as newer than every release (3999). -DEDGE_LLM_NS3_VERSION=30XX overrides.
#    It is a compile definition of every target of this directory (library, tests,
#    examples) and, through edge_llm_export_ns3_version() called after build_lib(), an
#    interface definition of the library: every program linking it (a
#    scratch/ program in-tree, an installed package's user) compiles the public headers
#    with the same value.
#  * Warnings of this directory's targets only (ns-3's and other modules' are untouched):
#    standalone -Wall -Wextra; with EDGE_LLM_WERROR=ON, or in-tree with ns-3's
#    NS3_WARNINGS_AS_ERRORS=ON, -Werror and -Werror=deprecated-declarations (ns-3 adds
#    -Wno-error=deprecated-declarations; the module must use no deprecated API).

option(EDGE_LLM_WERROR "Warnings are errors in the edge-llm module's own code" OFF)

if(DEFINED EDGE_LLM_NS3_VERSION)
  set(edge_llm_ns3_version_source "-DEDGE_LLM_NS3_VERSION")
  set(edge_llm_ns3_version_text ${EDGE_LLM_NS3_VERSION})
elseif(EDGE_LLM_STANDALONE)
  set(edge_llm_ns3_version_source "the ns3 CMake package")
  set(edge_llm_ns3_version_text ${ns3_VERSION})
elseif(DEFINED NS3_VER)
  set(edge_llm_ns3_version_source "NS3_VER")
  set(edge_llm_ns3_version_text ${NS3_VER})
else()
  set(edge_llm_ns3_version_source "${PROJECT_SOURCE_DIR}/VERSION")
  set(edge_llm_ns3_version_text)
  if(EXISTS ${PROJECT_SOURCE_DIR}/VERSION)
    file(STRINGS ${PROJECT_SOURCE_DIR}/VERSION edge_llm_ns3_version_text LIMIT_COUNT 1)
  endif()
endif()
string(STRIP "${edge_llm_ns3_version_text}" edge_llm_ns3_version_text)

if(DEFINED EDGE_LLM_NS3_VERSION)
  set(EDGE_LLM_NS3_VERSION_NUMBER ${EDGE_LLM_NS3_VERSION})
  if(NOT EDGE_LLM_NS3_VERSION_NUMBER MATCHES "^3[0-9][0-9][0-9]$")
    message(FATAL_ERROR "edge-llm: EDGE_LLM_NS3_VERSION is '${EDGE_LLM_NS3_VERSION}', it must be "
                        "1000 * major + minor of ns-3, e.g. 3037 for ns-3.37")
  endif()
elseif(edge_llm_ns3_version_text MATCHES "^3\\.([0-9]+)")
  math(EXPR EDGE_LLM_NS3_VERSION_NUMBER "3000 + ${CMAKE_MATCH_1}")
elseif(edge_llm_ns3_version_text MATCHES "^3-dev")
  set(EDGE_LLM_NS3_VERSION_NUMBER 3999)
else()
  message(FATAL_ERROR "edge-llm: cannot tell the ns-3 version from ${edge_llm_ns3_version_source} "
                      "('${edge_llm_ns3_version_text}', expected 3.MINOR), "
                      "pass -DEDGE_LLM_NS3_VERSION=30XX (e.g. 3037 for ns-3.37)")
endif()
if(EDGE_LLM_NS3_VERSION_NUMBER LESS 3035)
  message(FATAL_ERROR "edge-llm: ns-3 ${edge_llm_ns3_version_text} is too old: "
                      "the module needs ns-3.35 or later")
endif()

add_compile_definitions(EDGE_LLM_NS3_VERSION=${EDGE_LLM_NS3_VERSION_NUMBER})

set(edge_llm_warning_text "")
if(NOT MSVC)
  if(EDGE_LLM_STANDALONE)
    add_compile_options(-Wall -Wextra)
    set(edge_llm_warning_text "-Wall -Wextra")
  endif()
  if(EDGE_LLM_WERROR OR NS3_WARNINGS_AS_ERRORS)
    add_compile_options(-Werror -Werror=deprecated-declarations)
    string(APPEND edge_llm_warning_text " -Werror -Werror=deprecated-declarations")
  endif()
endif()
string(STRIP "${edge_llm_warning_text}" edge_llm_warning_text)
if(edge_llm_warning_text STREQUAL "")
  set(edge_llm_warning_text "ns-3's")
endif()
# One argument without semicolons: ns-3's message() wrapper joins its arguments with spaces
# and splits them as lists.
string(CONCAT edge_llm_status "edge-llm: ns-3 '${edge_llm_ns3_version_text}' "
              "(from ${edge_llm_ns3_version_source}), "
              "EDGE_LLM_NS3_VERSION=${EDGE_LLM_NS3_VERSION_NUMBER}, warnings ${edge_llm_warning_text}")
message(STATUS "${edge_llm_status}")

# Programs linking the library get the definition too. The library target is found here
# (${libedge-llm}), not passed from CMakeLists.txt: ns-3's module filter reads every such
# token in a module's CMakeLists.txt as a dependency of the module.
function(edge_llm_export_ns3_version)
  set(target ${libedge-llm})
  if(NOT TARGET ${target})
    message(WARNING "edge-llm: no library target '${target}': programs linking the module "
                    "must define EDGE_LLM_NS3_VERSION=${EDGE_LLM_NS3_VERSION_NUMBER} themselves")
    return()
  endif()
  target_compile_definitions(${target} INTERFACE EDGE_LLM_NS3_VERSION=${EDGE_LLM_NS3_VERSION_NUMBER})
endfunction()
