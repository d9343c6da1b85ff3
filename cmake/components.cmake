# One library target per folder of src/gputwin, with the folders it may include declared, as Abseil's
# absl_cc_library does:
#
#   gputwin_add_component(NAME sim DEPS design trace TEST_DEPS report)
#
# builds gputwin_sim from src/gputwin/sim/**/*.cpp (tests and test support left out) and, with GPUTWIN_TESTS,
# the test binary gputwin_sim_tests from its *_test.cpp files. DEPS are direct; what a component may include is
# itself plus the closure of its DEPS. The build enforces it: each component compiles against an include root
# of its own (build/include-roots/<name>/gputwin/<folder> links, one per allowed folder), never against src/,
# so `#include "gputwin/report/x.hpp"` in sim/ does not build. TEST_DEPS widen the test binary's root only
# (a test may render its result with a report, say). The ctest layers.upward_include_fails checks every
# forbidden pair. Each component's *_test_support.cpp files form gputwin_<name>_test_support, linked into the
# test binaries of the components above it.
set(GPUTWIN_COMPONENT_SOURCE_ROOT "${PROJECT_SOURCE_DIR}/src")
set(GPUTWIN_INCLUDE_ROOTS "${CMAKE_BINARY_DIR}/include-roots")
set_property(GLOBAL PROPERTY GPUTWIN_COMPONENTS "")

# The component, its DEPS and their closures, in declaration order, without repeats.
function(gputwin_component_closure out)
  set(closure "")
  foreach(name IN LISTS ARGN)
    get_property(below GLOBAL PROPERTY "GPUTWIN_CLOSURE_${name}")
    if(NOT DEFINED below OR "${below}" STREQUAL "")
      get_property(known GLOBAL PROPERTY GPUTWIN_COMPONENTS)
      if(NOT name IN_LIST known)
        message(FATAL_ERROR "gputwin component '${name}' is used before it is declared (declare in pipeline order)")
      endif()
    endif()
    list(APPEND closure ${below})
  endforeach()
  list(REMOVE_DUPLICATES closure)
  set(${out} "${closure}" PARENT_SCOPE)
endfunction()

# An include root that exposes exactly `folders` under gputwin/.
function(gputwin_make_include_root root)
  file(REMOVE_RECURSE "${root}")
  file(MAKE_DIRECTORY "${root}/gputwin")
  foreach(folder IN LISTS ARGN)
    file(CREATE_LINK "${GPUTWIN_COMPONENT_SOURCE_ROOT}/gputwin/${folder}" "${root}/gputwin/${folder}" SYMBOLIC)
  endforeach()
endfunction()

function(gputwin_add_component)
  cmake_parse_arguments(C "EXECUTABLE" "NAME;OUTPUT_NAME" "DEPS;TEST_DEPS;LIBS;EXTRA_SOURCES" ${ARGN})
  gputwin_component_closure(below ${C_DEPS})
  set(closure ${C_NAME} ${below})
  set_property(GLOBAL PROPERTY "GPUTWIN_CLOSURE_${C_NAME}" "${closure}")
  set_property(GLOBAL APPEND PROPERTY GPUTWIN_COMPONENTS ${C_NAME})

  file(GLOB_RECURSE sources CONFIGURE_DEPENDS "${GPUTWIN_COMPONENT_SOURCE_ROOT}/gputwin/${C_NAME}/*.cpp")
  set(library_sources ${sources})
  list(FILTER library_sources EXCLUDE REGEX "_test(_support)?\\.cpp$")
  set(test_sources ${sources})
  list(FILTER test_sources INCLUDE REGEX "_test\\.cpp$")
  set(support_sources ${sources})
  list(FILTER support_sources INCLUDE REGEX "_test_support\\.cpp$")

  set(root "${GPUTWIN_INCLUDE_ROOTS}/${C_NAME}")
  gputwin_make_include_root("${root}" ${closure})
  set(target gputwin_${C_NAME})
  if(C_EXECUTABLE)
    set(target ${C_OUTPUT_NAME})
    add_executable(${target} ${library_sources} ${C_EXTRA_SOURCES})
  else()
    add_library(${target} STATIC ${library_sources} ${C_EXTRA_SOURCES})
  endif()
  target_include_directories(${target} PRIVATE "${root}")
  foreach(dep IN LISTS C_DEPS)
    target_link_libraries(${target} PUBLIC gputwin_${dep})
  endforeach()
  target_link_libraries(${target} PUBLIC ${C_LIBS})

  if(GPUTWIN_TESTS AND support_sources)
    add_library(${target}_test_support STATIC ${support_sources})
    target_include_directories(${target}_test_support PRIVATE "${root}")
    target_link_libraries(${target}_test_support PUBLIC ${target} GTest::gtest)
    gputwin_test_definitions(${target}_test_support)
    set_property(GLOBAL PROPERTY "GPUTWIN_TEST_SUPPORT_${C_NAME}" ${target}_test_support)
  endif()
  set_property(GLOBAL PROPERTY "GPUTWIN_TEST_SOURCES_${C_NAME}" "${test_sources}")
  set_property(GLOBAL PROPERTY "GPUTWIN_TEST_DEPS_${C_NAME}" "${C_TEST_DEPS}")
endfunction()

# The test binaries, once every component is declared (a test may use a component above its own).
function(gputwin_add_component_tests)
  get_property(components GLOBAL PROPERTY GPUTWIN_COMPONENTS)
  foreach(name IN LISTS components)
    get_property(test_sources GLOBAL PROPERTY "GPUTWIN_TEST_SOURCES_${name}")
    get_property(test_deps GLOBAL PROPERTY "GPUTWIN_TEST_DEPS_${name}")
    if(NOT test_sources)
      continue()
    endif()
    set(target gputwin_${name}_tests)
    gputwin_component_closure(test_closure ${name} ${test_deps})
    set(test_root "${GPUTWIN_INCLUDE_ROOTS}/${name}_tests")
    gputwin_make_include_root("${test_root}" ${test_closure})
    add_executable(${target} ${test_sources})
    target_include_directories(${target} PRIVATE "${test_root}")
    foreach(component IN LISTS test_closure)
      get_property(support GLOBAL PROPERTY "GPUTWIN_TEST_SUPPORT_${component}")
      if(support)
        target_link_libraries(${target} PRIVATE ${support})
      endif()
      target_link_libraries(${target} PRIVATE gputwin_${component})
    endforeach()
    target_link_libraries(${target} PRIVATE GTest::gtest GTest::gtest_main)
    gputwin_test_definitions(${target})
    gtest_discover_tests(${target} WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" DISCOVERY_TIMEOUT 60)
  endforeach()
endfunction()

function(gputwin_test_definitions target)
  target_compile_definitions(${target} PRIVATE GPUTWIN_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                               GPUTWIN_SHARED_DIR="${PROJECT_SOURCE_DIR}/../shared")
endfunction()
