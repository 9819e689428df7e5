# sanitizer.cmake -- run one program under one compute-sanitizer tool.
#   cmake -DSANITIZER=<compute-sanitizer or empty> -DTOOL=<memcheck|racecheck|initcheck|synccheck>
#         -DPROGRAM=<exe> -DEXPECT=<CLEAN or a regex> -DEXPECTED=<expected/x.out>
#         -P sanitizer.cmake
# EXPECT=CLEAN: the tool's own summary must report nothing, and the program
#   must exit as its recorded output says (EXPECTED's "[exit status: N]").
# EXPECT=<regex>: the report must match the regex and the tool must have found errors.
# Prints "[SKIPPED] ..." without compute-sanitizer or without a usable GPU.
cmake_minimum_required(VERSION 3.25)
if(NOT SANITIZER)
  message(STATUS "[SKIPPED] compute-sanitizer not found")
  return()
endif()

set(found_errors 86)
set(args --tool ${TOOL} --error-exitcode ${found_errors} --print-limit 20)
if(TOOL STREQUAL "memcheck")
  list(APPEND args --leak-check full)
endif()
execute_process(COMMAND "${SANITIZER}" ${args} "${PROGRAM}"
                OUTPUT_VARIABLE report ERROR_VARIABLE report RESULT_VARIABLE rc)
list(JOIN args " " shown)
message(NOTICE "compute-sanitizer ${shown} ${PROGRAM}\n${report}[exit status: ${rc}]")
if(report MATCHES "\\[SKIPPED\\]")
  message(STATUS "[SKIPPED] the program found no usable GPU")
  return()
endif()

# racecheck prints its own summary line; the other tools print ERROR SUMMARY.
if(TOOL STREQUAL "racecheck")
  set(clean_summary "RACECHECK SUMMARY: 0 hazards displayed \\(0 errors, 0 warnings\\)")
else()
  set(clean_summary "ERROR SUMMARY: 0 errors")
endif()

if(EXPECT STREQUAL "CLEAN")
  file(READ "${EXPECTED}" recorded)
  if(NOT recorded MATCHES "\\[exit status: ([^]]*)\\]\n$")
    message(FATAL_ERROR "${EXPECTED} has no [exit status: N] line")
  endif()
  set(want_rc "${CMAKE_MATCH_1}")
  if(NOT report MATCHES "${clean_summary}")
    message(FATAL_ERROR "${TOOL} did not report a clean run (no '${clean_summary}')")
  endif()
  if(NOT rc STREQUAL want_rc)
    message(FATAL_ERROR "${TOOL}: exit status ${rc}, expected ${want_rc} as recorded")
  endif()
  message(STATUS "${TOOL}: clean")
else()
  if(NOT report MATCHES "${EXPECT}")
    message(FATAL_ERROR "${TOOL} did not report '${EXPECT}'")
  endif()
  if(NOT rc STREQUAL "${found_errors}")
    message(FATAL_ERROR "${TOOL} exit status ${rc}: expected ${found_errors} (errors found)")
  endif()
  message(STATUS "${TOOL} reported the bug: '${EXPECT}'")
endif()
