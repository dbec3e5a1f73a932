# The CMake functions of linfault's users, available in linfault's own build and, through
# find_package(linfault), in any other project (docs/adding-a-target.md):
#
# linfault_add_target(NAME SOURCES ... [DEPS ...] [INSTRUMENT])
#   Builds concurrent objects as an object library NAME that links linfault's public API
#   (linfault::target: the instrumentation, the binding and target registration) plus DEPS. An
#   object library, so that every object file reaches the programs that link NAME: targets
#   registered with LINFAULT_REGISTER_TARGET and the structure trees register themselves during
#   static initialization, which a static archive would drop. When an extractor is available
#   (linfault's own build with Clang, or an installed package that has linfault-structure) the
#   per-operation structure trees of SOURCES are generated and registered for D-PCT.
#   INSTRUMENT: SOURCES are written against std::atomic, std::atomic_flag, std::mutex & co.; the
#   build compiles instrumented copies of them and of the headers beside them (foo.cc -> foo.h;
#   a header-only class: list its header in SOURCES), made by linfault-structure's rewriter
#   (structure_tree/rewriter.h) in the build tree, with #line directives so every trace names
#   the user's own file:line. Needs the extractor.
#
# linfault_add_tool(NAME TARGETS <libraries>...)
#   An executable NAME with every command of `linfault` (run, detect, replay, minimize, triage,
#   report, targets, check, ...) that also knows the targets registered in <libraries>.
#
# linfault_add_test(NAME SOURCES ... TARGETS <libraries>... [DEPS ...] [NO_DISCOVER])
#   A GoogleTest executable linked with linfault's GoogleTest check (<linfault/gtest.h>),
#   GTest::gtest_main and <libraries>, registered with ctest (gtest_discover_tests) unless
#   NO_DISCOVER. For the check and for the repros that `run` and `minimize` generate.

if(NOT COMMAND linfault_structure_trees)
  include(${CMAKE_CURRENT_LIST_DIR}/LinfaultStructureTrees.cmake)
endif()

# A campaign runs the targets millions of times. Compiled without optimization (a single-config
# build with no CMAKE_BUILD_TYPE), `detect` checked 114k histories/s of a 2 x 5 counter where
# RelWithDebInfo checked 180k: said once, at configure time.
function(_linfault_check_build_type)
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  get_property(said GLOBAL PROPERTY _LINFAULT_BUILD_TYPE_SAID)
  if(multi_config OR CMAKE_BUILD_TYPE OR said)
    return()
  endif()
  set_property(GLOBAL PROPERTY _LINFAULT_BUILD_TYPE_SAID TRUE)
  message(WARNING "linfault: CMAKE_BUILD_TYPE is empty, so your targets compile without "
                  "optimization and `detect` runs them about 1.6 times slower; configure with "
                  "-DCMAKE_BUILD_TYPE=RelWithDebInfo (or Release)")
endfunction()

function(linfault_add_target name)
  cmake_parse_arguments(ARG "INSTRUMENT" "" "SOURCES;DEPS" ${ARGN})
  _linfault_check_build_type()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "linfault_add_target(${name}): no SOURCES given")
  endif()
  if(NOT ARG_INSTRUMENT)
    add_library(${name} OBJECT ${ARG_SOURCES})
    target_link_libraries(${name} PUBLIC linfault::target ${ARG_DEPS})
    linfault_structure_trees(${name} ${ARG_SOURCES})
    return()
  endif()

  _linfault_extractor(extractor extractor_dependency)
  if(NOT extractor)
    message(FATAL_ERROR "linfault_add_target(${name} ... INSTRUMENT): this linfault has no "
                        "linfault-structure (built without Clang), which INSTRUMENT needs")
  endif()
  # The originals, the headers beside them, and where their instrumented copies go.
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${name}_instrumented")
  set(inputs "")
  set(copies "")
  set(copied_sources "")
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(dir "${path}" DIRECTORY)
    get_filename_component(stem "${path}" NAME_WE)
    set(siblings "${path}")
    foreach(ext h hpp hh)
      if(EXISTS "${dir}/${stem}.${ext}")
        list(APPEND siblings "${dir}/${stem}.${ext}")
      endif()
    endforeach()
    foreach(file IN LISTS siblings)
      file(RELATIVE_PATH relative "${CMAKE_CURRENT_SOURCE_DIR}" "${file}")
      if(relative MATCHES "^\\.\\./")
        get_filename_component(relative "${file}" NAME)
      endif()
      list(APPEND inputs "${file}")
      list(APPEND copies "${out_dir}/${relative}")
      if(file STREQUAL path)
        list(APPEND copied_sources "${out_dir}/${relative}")
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES inputs)
  list(REMOVE_DUPLICATES copies)

  # The originals are parsed with the target's own include directories and definitions, plus
  # linfault's (a registration source includes <linfault/target.h>).
  get_property(linfault_includes GLOBAL PROPERTY LINFAULT_PARSE_INCLUDES)
  set(linfault_flags "")
  foreach(dir IN LISTS linfault_includes)
    list(APPEND linfault_flags "-I${dir}")
  endforeach()
  set(includes "$<TARGET_PROPERTY:${name},INCLUDE_DIRECTORIES>")
  set(definitions "$<TARGET_PROPERTY:${name},COMPILE_DEFINITIONS>")
  add_custom_command(
    OUTPUT ${copies}
    COMMAND ${extractor} ${inputs} --instrument "${out_dir}" --base "${CMAKE_CURRENT_SOURCE_DIR}"
            -- -std=c++20 "-I${CMAKE_CURRENT_SOURCE_DIR}" ${linfault_flags}
            "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
            "$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},;-D>>"
    DEPENDS ${extractor_dependency} ${inputs}
    COMMENT "Instrumenting the sources of ${name}"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  add_library(${name} OBJECT ${copied_sources})
  # The copies first, so that every include of a rewritten header finds the rewritten one; the
  # originals' directory after them, for the headers that were not rewritten.
  target_include_directories(${name} BEFORE PUBLIC "$<BUILD_INTERFACE:${out_dir}>")
  target_include_directories(${name} PUBLIC "$<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>")
  target_link_libraries(${name} PUBLIC linfault::target ${ARG_DEPS})
  linfault_structure_trees(${name} ${copies})
endfunction()

# The main() of a tool named NAME, generated once per tool.
function(_linfault_tool_main name out_var)
  set(main "${CMAKE_CURRENT_BINARY_DIR}/${name}_main.cc")
  file(CONFIGURE OUTPUT "${main}" CONTENT [[
// Generated by linfault_add_tool(@name@); do not edit.
#include <linfault/tool.h>

int main(int argc, char** argv) { return linfault::tool_main(argc, argv, "@name@"); }
]] @ONLY)
  set(${out_var} "${main}" PARENT_SCOPE)
endfunction()

function(linfault_add_tool name)
  cmake_parse_arguments(ARG "" "" "TARGETS" ${ARGN})
  if(NOT ARG_TARGETS)
    message(FATAL_ERROR "linfault_add_tool(${name}): no TARGETS given (the libraries of "
                        "linfault_add_target that register your targets)")
  endif()
  _linfault_tool_main(${name} main)
  add_executable(${name} "${main}")
  target_link_libraries(${name} PRIVATE linfault::tool ${ARG_TARGETS})
endfunction()

function(linfault_add_test name)
  cmake_parse_arguments(ARG "NO_DISCOVER" "" "SOURCES;TARGETS;DEPS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "linfault_add_test(${name}): no SOURCES given")
  endif()
  if(NOT TARGET GTest::gtest_main)
    find_package(GTest REQUIRED)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE linfault::gtest ${ARG_TARGETS} ${ARG_DEPS}
                                        GTest::gtest_main)
  if(NOT ARG_NO_DISCOVER)
    include(GoogleTest)
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
  endif()
endfunction()
