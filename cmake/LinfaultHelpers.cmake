# Small helpers so that every directory declares its libraries and tests the same way.

# linfault_library(NAME SOURCES ... [DEPS ...])
# A static library whose headers are included as "dir/header.h" from the project root.
function(linfault_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

# linfault_test(NAME SOURCES ... [DEPS ...] [LABELS ...])
# A GoogleTest executable registered with ctest, one ctest entry per test case. Tests run from the
# project root so that paths like ../shared/data resolve the same way they do for users.
function(linfault_test name)
  if(NOT LINFAULT_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_compile_definitions(${name} PRIVATE
    LINFAULT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LINFAULT_SHARED_DIR="${PROJECT_SOURCE_DIR}/../shared"
    LINFAULT_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${name} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS "${ARG_LABELS}" DISCOVERY_TIMEOUT 60)
  # `native_tests` builds just the tests of real-thread execution (the ThreadSanitizer job).
  if("native" IN_LIST ARG_LABELS)
    if(NOT TARGET native_tests)
      add_custom_target(native_tests)
    endif()
    add_dependencies(native_tests ${name})
  endif()
endfunction()
