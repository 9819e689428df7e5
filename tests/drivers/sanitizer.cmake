# sanitizer.cmake -- run one program under one compute-sanitizer tool.
#   cmake -DSANITIZER=<compute-sanitizer or empty> -DTOOL=<memcheck|racecheck|initcheck|synccheck>
#         -DPROGRAM=<exe> -DEXPECT=<CLEAN or a regex> -DEXPECTED=<expected/x.out>
#         -DSKIP_TOKEN=<token> -P sanitizer.cmake
# EXPECT=CLEAN: the tool's own summary must report nothing, and the program
#   must exit as its recorded output says (EXPECTED's "[exit status: N]").
# EXPECT=<regex>: the report must match the regex and the tool must have found errors.
# Skips without compute-sanitizer, or when the program took the no-GPU path.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/run_program.cmake")
if(NOT SANITIZER)
  clinic_skip("sanitizer" "compute-sanitizer was not found next to nvcc or on the PATH")
  return()
endif()

set(found_errors 86)
set(args --tool ${TOOL} --error-exitcode ${found_errors} --print-limit 20)
if(TOOL STREQUAL "memcheck")
  list(APPEND args --leak-check full)
endif()
execute_process(COMMAND "${SANITIZER}" ${args} "${PROGRAM}" TIMEOUT 300
                OUTPUT_VARIABLE report ERROR_VARIABLE report RESULT_VARIABLE rc)
list(JOIN args " " shown)
message(NOTICE "compute-sanitizer ${shown} ${PROGRAM}\n${report}[exit status: ${rc}]")
# The no-GPU path: the program exited 77 (the tool passes its status on when it
# found no errors) after printing its "[SKIPPED] <why>" line.
if(rc STREQUAL "77" AND report MATCHES "(^|\n)\\[SKIPPED\\] ([^\n]+)\n")
  clinic_skip("gpu" "${CMAKE_MATCH_2}")
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
