# golden.cmake -- run one program and compare its transcript (stdout, stderr,
# exit status) with the recorded one, byte for byte.
#   cmake -DPROGRAM=<exe> -DEXPECTED=<expected/x.out> -DWORK=<file> [-DDIFF=<diff>]
#         -P golden.cmake
# With the environment variable CLINIC_UPDATE_EXPECTED=1 it records the
# transcript into EXPECTED instead (only from a real run: never when skipped).
# cmake -P cannot pick its exit code before CMake 3.29, so a skip is the line
# "[SKIPPED] ..." that the test matches with SKIP_REGULAR_EXPRESSION.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/run_program.cmake")

clinic_run("${PROGRAM}" got)
if(got_SKIPPED)
  message(STATUS "${got_STDOUT}")
  return()
endif()

clinic_check_transcript("${EXPECTED}" "${got}" "${WORK}")
