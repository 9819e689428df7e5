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

# clinic_show_diff(<expected-file> <actual-text> <work-file> <out-var>): a
# unified diff of the recorded transcript against the new one.
function(clinic_show_diff expected actual work out)
  file(WRITE "${work}" "${actual}")
  if(DIFF)
    execute_process(COMMAND "${DIFF}" -u --label "${expected}" --label actual
                            "${expected}" "${work}" OUTPUT_VARIABLE udiff)
  else()
    file(READ "${expected}" want)
    set(udiff "--- expected\n${want}+++ actual\n${actual}")
  endif()
  set(${out} "${udiff}" PARENT_SCOPE)
endfunction()
