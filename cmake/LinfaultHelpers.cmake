# Small helpers so that every directory declares its libraries and tests the same way.

# linfault_library(NAME SOURCES ... [DEPS ...] [NO_INSTALL])
# A static library whose headers are included as "dir/header.h" from the project root (in an
# installed package: from <prefix>/include/linfault/internal) and whose public API headers as
# <linfault/...> (include/). NAME is linfault_<x>; it is also linfault::<x>, the name under which
# the installed package exports it, unless NO_INSTALL (libraries only linfault's own tools use,
# such as the Clang extractor).
function(linfault_library name)
  cmake_parse_arguments(ARG "NO_INSTALL" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  target_compile_features(${name} PUBLIC cxx_std_20)
  linfault_export(${name} NO_INSTALL ${ARG_NO_INSTALL})
endfunction()

# linfault_export(NAME [NO_INSTALL <bool>])
# Gives the library NAME (linfault_<x>) its namespaced alias linfault::<x> and, unless
# NO_INSTALL is true, installs it into the package's export set.
function(linfault_export name)
  cmake_parse_arguments(ARG "" "NO_INSTALL" "" ${ARGN})
  string(REGEX REPLACE "^linfault_" "" short "${name}")
  add_library(linfault::${short} ALIAS ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${short})
  if(NOT ARG_NO_INSTALL)
    target_include_directories(${name} INTERFACE
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/linfault/internal>)
    install(TARGETS ${name} EXPORT linfault-targets
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
endfunction()

# The definitions every test file sees: where the sources, ../shared and the build are.
function(linfault_test_definitions name)
  target_compile_definitions(${name} PRIVATE
    LINFAULT_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LINFAULT_SHARED_DIR="${PROJECT_SOURCE_DIR}/../shared"
    LINFAULT_BINARY_DIR="${PROJECT_BINARY_DIR}")
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
  linfault_test_definitions(${name})
  # GoogleTest's headers took 2.5 s of each test file's compile; every test reuses one precompiled
  # copy of them (a test whose flags differ falls back to parsing them, unchanged in meaning).
  if(NOT TARGET linfault_test_pch)
    file(WRITE ${PROJECT_BINARY_DIR}/linfault_test_pch.cc "")
    add_library(linfault_test_pch OBJECT ${PROJECT_BINARY_DIR}/linfault_test_pch.cc)
    target_link_libraries(linfault_test_pch PRIVATE GTest::gtest GTest::gmock)
    linfault_test_definitions(linfault_test_pch)
    target_precompile_headers(linfault_test_pch PRIVATE <gmock/gmock.h> <gtest/gtest.h>)
  endif()
  target_precompile_headers(${name} REUSE_FROM linfault_test_pch)
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
