# The CMake functions of linfault's users, available in linfault's own build and, through
# find_package(linfault), in any other project (docs/adding-a-target.md):
#
# linfault_add_target(NAME SOURCES ... [DEPS ...] [INSTRUMENT [HEADERS <header or dir/>...]])
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
#   (structure_tree/rewriter.h) in the build tree, <build>/NAME_instrumented/, with #line
#   directives so every trace names the user's own file:line. Needs the extractor.
#   INSTRUMENT HEADERS: a library's installed headers too, left where they are: each entry is the
#   path an #include names a header by (boost/lockfree/queue.hpp) or a directory prefix ending in
#   '/' (boost/lockfree/: every header under it, whatever includes what). At configure time each
#   is looked up in the current source directory, include_directories(), the target's and DEPS'
#   include directories, then the compiler's own (CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES, e.g.
#   /usr/include), the first that has it winning; one not found stops the configuration with one
#   line naming it. The copies go to <build>/NAME_instrumented/<include path>, first on the
#   include path of NAME and of what links it, so `#include <boost/lockfree/queue.hpp>` compiles
#   the copy. Every header under a directory is copied, the ones with nothing to rewrite too (only
#   a #line added), so that quoted includes between them ("concurrentqueue.h") find copies. A
#   header no source includes is parsed on its own; under a directory, one that does not compile
#   alone (an internal header, a preview feature's) is copied unchanged with a warning, a header
#   named by itself is an error. A construct the rewriter refuses in a header is a build error
#   naming its file:line; an atomic whose address escapes as a void* to a function not
#   instrumented is a warning (rewriter.h). The build re-instruments when a SOURCE, a sibling, a
#   listed header or the extractor changes; it never reads its own copies (the parse leaves the
#   copies' directory out of the include path), and copies whose text did not change keep their
#   time stamps.
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

# _linfault_include_search_dirs(<var> <name> <deps...>): where INSTRUMENT HEADERS are looked up
# at configure time, in the compiler's order: the current source directory, the directory's
# include_directories(), the include directories the target has so far, those of DEPS (and of
# what they link, through generator expressions left out), then the compiler's own
# (CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES, e.g. /usr/include).
function(_linfault_include_search_dirs out_var name)
  set(dirs "${CMAKE_CURRENT_SOURCE_DIR}")
  get_property(directory_dirs DIRECTORY PROPERTY INCLUDE_DIRECTORIES)
  get_target_property(target_dirs ${name} INCLUDE_DIRECTORIES)
  if(NOT target_dirs)
    set(target_dirs "")
  endif()
  list(APPEND dirs ${directory_dirs} ${target_dirs})
  set(pending ${ARGN})
  set(seen "")
  while(pending)
    list(POP_FRONT pending dep)
    if(NOT TARGET "${dep}" OR dep IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${dep}")
    get_target_property(aliased "${dep}" ALIASED_TARGET)
    if(aliased)
      list(APPEND pending "${aliased}")
      continue()
    endif()
    foreach(property INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES)
      get_target_property(dep_dirs "${dep}" ${property})
      if(dep_dirs)
        list(APPEND dirs ${dep_dirs})
      endif()
    endforeach()
    get_target_property(linked "${dep}" INTERFACE_LINK_LIBRARIES)
    if(linked)
      list(APPEND pending ${linked})
    endif()
  endwhile()
  list(APPEND dirs ${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES})
  set(result "")
  foreach(dir IN LISTS dirs)
    if(dir MATCHES "^\\$<BUILD_INTERFACE:([^$<>]*)>$")
      set(dir "${CMAKE_MATCH_1}")
    endif()
    if(dir STREQUAL "" OR dir MATCHES "\\$<" OR NOT IS_ABSOLUTE "${dir}" OR
       NOT IS_DIRECTORY "${dir}")
      continue()
    endif()
    list(APPEND result "${dir}")
  endforeach()
  list(REMOVE_DUPLICATES result)
  set(${out_var} "${result}" PARENT_SCOPE)
endfunction()

# _linfault_resolve_headers(<name> <out_dir> <entries> <search dirs> <named var> <directory var>):
# each entry of INSTRUMENT HEADERS, a header's include path (boost/lockfree/queue.hpp) or a
# directory prefix ending in '/' (boost/lockfree/: every header under it), looked up in the
# search directories, the first that has it winning. The results are "HEADER=INCLUDE_PATH",
# what linfault-structure's --header and --directory-header take. One that is not found stops
# the configuration with one line naming it.
function(_linfault_resolve_headers name out_dir entries search named_var directory_var)
  set(named "")
  set(in_directory "")
  string(REPLACE ";" ", " searched "${search}")
  foreach(entry IN LISTS entries)
    if(IS_ABSOLUTE "${entry}" OR entry MATCHES "(^|/)\\.\\.(/|$)")
      message(FATAL_ERROR "linfault_add_target(${name}): INSTRUMENT HEADERS ${entry}: give the "
                          "path an #include names it by (boost/lockfree/queue.hpp), or a "
                          "directory of them ending in '/' (boost/lockfree/)")
    endif()
    set(found "")
    foreach(dir IN LISTS search)
      if(entry MATCHES "/$")
        if(IS_DIRECTORY "${dir}/${entry}")
          set(found "${dir}")
          break()
        endif()
      elseif(EXISTS "${dir}/${entry}" AND NOT IS_DIRECTORY "${dir}/${entry}")
        set(found "${dir}")
        break()
      endif()
    endforeach()
    if(NOT found)
      message(FATAL_ERROR "linfault_add_target(${name}): INSTRUMENT HEADERS ${entry}: not found "
                          "in the include directories (${searched})")
    endif()
    if(NOT entry MATCHES "/$")
      list(APPEND named "${found}/${entry}=${entry}")
      continue()
    endif()
    # Every header under the directory: names with a header's ending, or none (<vector>-style).
    file(GLOB_RECURSE headers LIST_DIRECTORIES false RELATIVE "${found}" CONFIGURE_DEPENDS
         "${found}/${entry}*")
    set(count 0)
    foreach(header IN LISTS headers)
      get_filename_component(file_name "${header}" NAME)
      if(NOT file_name MATCHES "(\\.(h|hh|hpp|hxx|h\\+\\+|ipp|inl|inc|tcc|tpp|txx)|^[^.]+)$")
        continue()
      endif()
      list(APPEND in_directory "${found}/${header}=${header}")
      math(EXPR count "${count} + 1")
    endforeach()
    if(count EQUAL 0)
      message(FATAL_ERROR "linfault_add_target(${name}): INSTRUMENT HEADERS ${entry}: no header "
                          "under ${found}/${entry}")
    endif()
  endforeach()
  set(${named_var} "${named}" PARENT_SCOPE)
  set(${directory_var} "${in_directory}" PARENT_SCOPE)
endfunction()

function(linfault_add_target name)
  cmake_parse_arguments(ARG "INSTRUMENT" "" "SOURCES;DEPS;HEADERS" ${ARGN})
  _linfault_check_build_type()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "linfault_add_target(${name}): no SOURCES given")
  endif()
  if(ARG_HEADERS AND NOT ARG_INSTRUMENT)
    message(FATAL_ERROR "linfault_add_target(${name}): HEADERS is part of INSTRUMENT "
                        "(INSTRUMENT HEADERS ...)")
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
  set(tree_inputs ${copies})

  add_library(${name} OBJECT ${copied_sources})
  target_link_libraries(${name} PUBLIC linfault::target ${ARG_DEPS})

  # INSTRUMENT HEADERS: a library's headers, copied to out_dir/<include path>.
  set(header_args "")
  set(header_inputs "")
  if(ARG_HEADERS)
    _linfault_include_search_dirs(search ${name} ${ARG_DEPS})
    _linfault_resolve_headers(${name} "${out_dir}" "${ARG_HEADERS}" "${search}" named
                              in_directory)
    foreach(kind named in_directory)
      set(option --header)
      if(kind STREQUAL "in_directory")
        set(option --directory-header)
      endif()
      foreach(pair IN LISTS ${kind})
        string(FIND "${pair}" "=" equals REVERSE)
        string(SUBSTRING "${pair}" 0 ${equals} header)
        math(EXPR after "${equals} + 1")
        string(SUBSTRING "${pair}" ${after} -1 include_path)
        set(copy "${out_dir}/${include_path}")
        if(copy IN_LIST copies)
          message(FATAL_ERROR "linfault_add_target(${name}): INSTRUMENT HEADERS ${include_path}: "
                              "its copy would be the one of a source of the same path")
        endif()
        list(APPEND header_inputs "${header}")
        list(APPEND copies "${copy}")
        list(APPEND header_args ${option} "${pair}")
      endforeach()
    endforeach()
    list(REMOVE_DUPLICATES header_inputs)
  endif()

  # The originals are parsed with the target's own include directories and definitions, then
  # linfault's (a registration source includes <linfault/target.h>), in the order the compiler
  # searches them (the target's, then those of what it links); linfault-structure leaves
  # out_dir out of them, so that it always reads the originals, never its own copies.
  get_property(linfault_includes GLOBAL PROPERTY LINFAULT_PARSE_INCLUDES)
  set(linfault_flags "")
  foreach(dir IN LISTS linfault_includes)
    list(APPEND linfault_flags "-I${dir}")
  endforeach()
  set(includes "$<TARGET_PROPERTY:${name},INCLUDE_DIRECTORIES>")
  set(definitions "$<TARGET_PROPERTY:${name},COMPILE_DEFINITIONS>")
  # The stamp, first among the outputs, is new after every run: a generator without Ninja's
  # `restat` (Makefiles) judges the command by it, so copies left untouched because their text
  # did not change make it run once, not at every build.
  set(stamp "${out_dir}/.linfault-instrumented")
  add_custom_command(
    OUTPUT "${stamp}" ${copies}
    COMMAND ${extractor} ${inputs} --instrument "${out_dir}" --base "${CMAKE_CURRENT_SOURCE_DIR}"
            ${header_args}
            -- -std=c++20 "-I${CMAKE_CURRENT_SOURCE_DIR}"
            "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>" ${linfault_flags}
            "$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},;-D>>"
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS ${extractor_dependency} ${inputs} ${header_inputs}
    COMMENT "Instrumenting the sources of ${name}"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  # The copies first, so that every include of a rewritten header (and of a library's header
  # under INSTRUMENT HEADERS) finds the rewritten one; the originals' directory after them, for
  # the headers that were not rewritten.
  target_include_directories(${name} BEFORE PUBLIC "$<BUILD_INTERFACE:${out_dir}>")
  target_include_directories(${name} PUBLIC "$<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>")
  linfault_structure_trees(${name} ${tree_inputs})
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
