# run_program.cmake -- shared by the test drivers.
#
# How a test skips. cmake -P cannot pick its exit code before CMake 3.29, so a
# driver that skips prints a line with SKIP_TOKEN, a word made at configure
# time that no program can know, and the test sets SKIP_REGULAR_EXPRESSION to
# it. A program's own "[SKIPPED]" line never skips a test by itself: only a
# driver decides, with clinic_skip(), and only on the real no-GPU path.

# clinic_skip(<requirements> <why>): the test cannot run here. If the
# environment variable CLINIC_REQUIRE names one of <requirements> (a list such
# as "gpu;pycuda"), or is "all", that is a failure; otherwise the test is
# reported as Skipped. The caller returns right after.
function(clinic_skip requirements why)
  string(REPLACE "," ";" required "$ENV{CLINIC_REQUIRE}")
  string(REPLACE "," ";" requirements "${requirements}")
  foreach(req IN LISTS requirements)
    if(req IN_LIST required OR "all" IN_LIST required)
      message(FATAL_ERROR "[REQUIRED] CLINIC_REQUIRE=$ENV{CLINIC_REQUIRE} requires '${req}', "
                          "but this test would skip: ${why}")
    endif()
  endforeach()
  if(NOT SKIP_TOKEN)
    message(FATAL_ERROR "the driver was not given -DSKIP_TOKEN, so it cannot skip: ${why}")
  endif()
  message(STATUS "[SKIPPED] ${why} ${SKIP_TOKEN}")
endfunction()

# clinic_run(<out-var> <command>...): runs the command and sets <out-var> to
# its transcript: stdout, then a "[stderr]" section if it wrote to stderr, then
# "[exit status: N]". Sets <out-var>_SKIP to the program's reason when it took
# the no-GPU path: it exited 77 and its stdout is one line "[SKIPPED] <why>".
# Anything else, a "[SKIPPED]" line with another exit status included, is an
# ordinary transcript to be judged. TIMEOUT, if set, limits the run (seconds).
function(clinic_run out)
  set(limit "")
  if(TIMEOUT)
    set(limit TIMEOUT ${TIMEOUT})
  endif()
  execute_process(COMMAND ${ARGN} ${limit}
                  OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr RESULT_VARIABLE rc)
  set(skip "")
  if(rc STREQUAL "77" AND stdout MATCHES "^\\[SKIPPED\\] ([^\n]+)\n$")
    set(skip "${CMAKE_MATCH_1}")
  endif()
  set(text "${stdout}")
  if(NOT stderr STREQUAL "")
    string(APPEND text "[stderr]\n${stderr}")
  endif()
  string(REPLACE "\r\n" "\n" text "${text}")
  if(NOT text STREQUAL "" AND NOT text MATCHES "\n$")
    string(APPEND text "\n")
  endif()
  # rc is a number, or a text such as "Segmentation fault" for a signal.
  string(APPEND text "[exit status: ${rc}]\n")
  set(${out} "${text}" PARENT_SCOPE)
  set(${out}_SKIP "${skip}" PARENT_SCOPE)
endfunction()

# clinic_update_mode(<out-var>): TRUE when the expected outputs are to be
# recorded rather than compared: CLINIC_UPDATE_EXPECTED is exactly 1, as the
# update-expected preset sets it. Refused on CI, where nothing may be recorded.
function(clinic_update_mode out)
  set(update FALSE)
  if("$ENV{CLINIC_UPDATE_EXPECTED}" STREQUAL "1")
    set(update TRUE)
  endif()
  if(update AND DEFINED ENV{CI})
    message(FATAL_ERROR "CLINIC_UPDATE_EXPECTED=1 with CI set: expected outputs are recorded "
                        "on a GPU host with the update-expected preset, never on CI")
  endif()
  set(${out} ${update} PARENT_SCOPE)
endfunction()

# clinic_check_transcript(<expected-file> <actual-text> <work-file>): in update
# mode, records the transcript into <expected-file>; otherwise fails, with a
# unified diff, unless it matches that file byte for byte.
function(clinic_check_transcript expected actual work)
  clinic_update_mode(update)
  if(update)
    file(WRITE "${expected}" "${actual}")
    message(STATUS "recorded ${expected}:\n${actual}")
    return()
  endif()
  if(NOT EXISTS "${expected}")
    message(FATAL_ERROR "no recorded output ${expected}: record it on a GPU host "
                        "with `ctest --preset update-expected` (see CONTRIBUTING.md). This run gave:\n${actual}")
  endif()
  file(READ "${expected}" want)
  if(actual STREQUAL want)
    message(STATUS "matches ${expected}:\n${actual}")
    return()
  endif()
  file(WRITE "${work}" "${actual}")
  if(DIFF)
    execute_process(COMMAND "${DIFF}" -u --label "${expected}" --label actual
                            "${expected}" "${work}" OUTPUT_VARIABLE udiff)
  else()
    set(udiff "--- expected\n${want}+++ actual\n${actual}")
  endif()
  message(NOTICE "${udiff}")
  message(FATAL_ERROR "the output differs from ${expected}")
endfunction()
