# linfault_add_target(NAME SOURCES ... [DEPS ...])
#
# Builds concurrent objects written against the dpct instrumentation API (dpct/shared.h) as a
# static library NAME that links the instrumentation and the binding helper (targets/bind.h),
# and, when the structure-tree extractor is part of the build, generates the per-operation
# structure trees of SOURCES for D-PCT by calling linfault_structure_trees(NAME SOURCES...).
# See docs/adding-a-target.md.
function(linfault_add_target name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "linfault_add_target(${name}): no SOURCES given")
  endif()
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC linfault_dpct linfault_history ${ARG_DEPS})
  if(COMMAND linfault_structure_trees)
    linfault_structure_trees(${name} ${ARG_SOURCES})
  endif()
endfunction()
