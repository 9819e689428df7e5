# run_program.cmake -- shared by the golden and tour drivers.
# clinic_run(<program> <out-var>): runs the program and sets <out-var> to its
# transcript: stdout, then a "[stderr]" section if it wrote to stderr, then
# "[exit status: N]". Sets <out-var>_SKIPPED to TRUE when it printed
# "[SKIPPED] ..." and exited 77 (no usable GPU).
function(clinic_run program out)
  execute_process(COMMAND "${program}"
                  OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr RESULT_VARIABLE rc)
  set(skipped FALSE)
  if(rc STREQUAL "77" AND stdout MATCHES "\\[SKIPPED\\]")
    set(skipped TRUE)
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
  set(${out}_SKIPPED ${skipped} PARENT_SCOPE)
  set(${out}_STDOUT "${stdout}" PARENT_SCOPE)
endfunction()

# clinic_check_transcript(<expected-file> <actual-text> <work-file>): with the
# environment variable CLINIC_UPDATE_EXPECTED=1, records the transcript into
# <expected-file>; otherwise fails, with a unified diff, unless it matches that
# file byte for byte.
function(clinic_check_transcript expected actual work)
  if("$ENV{CLINIC_UPDATE_EXPECTED}" STREQUAL "1")
    file(WRITE "${expected}" "${actual}")
    message(STATUS "recorded ${expected}:\n${actual}")
    return()
  endif()
  if(NOT EXISTS "${expected}")
    message(FATAL_ERROR "no recorded output ${expected}: record it on a GPU host "
                        "with CLINIC_UPDATE_EXPECTED=1 (see README). This run gave:\n${actual}")
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
