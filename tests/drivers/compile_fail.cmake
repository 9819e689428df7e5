# compile_fail.cmake -- a program that must not compile. Builds the target,
# asserts the build fails with the expected diagnostic, and compares nvcc's
# error lines with the recorded ones (CLINIC_UPDATE_EXPECTED=1 records them).
#   cmake -DBUILD_DIR=<dir> -DTARGET=<target> -DERROR_REGEX=<regex>
#         -DEXPECTED=<expected/broken.out> -DWORK=<file> [-DDIFF=<diff>] -P compile_fail.cmake
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/run_program.cmake")

execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}"
                OUTPUT_VARIABLE log ERROR_VARIABLE log RESULT_VARIABLE rc)
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but it must not:\n${log}")
endif()
if(NOT log MATCHES "${ERROR_REGEX}")
  message(FATAL_ERROR "${TARGET} failed to build, but not with '${ERROR_REGEX}':\n${log}")
endif()

# Keep nvcc's diagnostic lines, without the directories of the source file.
set(got "")
string(REPLACE "\n" ";" lines "${log}")
foreach(line IN LISTS lines)
  if(line MATCHES "error" AND line MATCHES "\\.cu")
    string(REGEX REPLACE "[^ \"(]*/([^/ \"(]+\\.cu)" "\\1" line "${line}")
    string(APPEND got "${line}\n")
  endif()
endforeach()
string(APPEND got "[compilation failed]\n")

clinic_check_transcript("${EXPECTED}" "${got}" "${WORK}")
