# golden.cmake -- run one program and compare its transcript (stdout, stderr,
# exit status) with the recorded one, byte for byte.
#   cmake -DPROGRAM=<exe or script> [-DINTERPRETER=<python>] -DEXPECTED=<expected/x.out>
#         -DWORK=<file> -DSKIP_TOKEN=<token> -DREQUIRES=<gpu;...> [-DDIFF=<diff>]
#         [-DTIMEOUT=<s>] -P golden.cmake
# In update mode (CLINIC_UPDATE_EXPECTED=1, the update-expected preset) it
# records the transcript into EXPECTED instead, only from a real run.
# Without INTERPRETER where one is needed (PyCUDA twins), it skips with WHY.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/run_program.cmake")

if(DEFINED INTERPRETER AND NOT INTERPRETER)
  clinic_skip("${REQUIRES}" "${WHY}")
  return()
endif()
clinic_run(got ${INTERPRETER} "${PROGRAM}")
if(got_SKIP)
  clinic_skip("${REQUIRES}" "${got_SKIP}")
  return()
endif()
clinic_check_transcript("${EXPECTED}" "${got}" "${WORK}")
