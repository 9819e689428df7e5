# mutants.cmake -- the self-test must catch the drivers' likely bugs. Each
# mutant below is one such bug, planted in a copy of the drivers; the
# self-test (selftest.cmake) must fail on it. tests/CMakeLists.txt registers
# one test per mutant, harness.mutant.<id>.
#   cmake -DWORK=<scratch dir> -DONLY=<id> [-DGENERATOR=<gen>] -P mutants.cmake
cmake_minimum_required(VERSION 3.25)
set(drivers "${CMAKE_CURRENT_LIST_DIR}")

# mutant(<id> <what> <driver file> <original text> <mutated text>)
function(mutant id what file original mutated)
  if(NOT id STREQUAL ONLY)
    return()
  endif()
  set(dir "${WORK}")
  file(REMOVE_RECURSE "${dir}")
  file(COPY "${drivers}/" DESTINATION "${dir}")
  file(READ "${dir}/${file}" code)
  string(FIND "${code}" "${original}" at)
  if(at LESS 0)
    message(FATAL_ERROR "mutant '${what}': '${original}' is no longer in ${file}; update this test")
  endif()
  string(REPLACE "${original}" "${mutated}" code "${code}")
  file(WRITE "${dir}/${file}" "${code}")
  execute_process(COMMAND "${CMAKE_COMMAND}" "-DWORK=${dir}/selftest" "-DDRIVERS=${dir}"
                          "-DGENERATOR=${GENERATOR}" -P "${drivers}/selftest.cmake"
                  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
  if(rc EQUAL 0)
    message(FATAL_ERROR "the self-test passes with the mutant '${what}' in ${file}:\n${out}")
  endif()
  string(REGEX MATCHALL "\n    [^\n]*CTest says[^\n]*" caught "${out}")
  list(LENGTH caught k)
  message(STATUS "killed: ${what} (${k} verdicts wrong)")
  set(ran TRUE PARENT_SCOPE)
endfunction()

set(ran FALSE)

mutant(skip_token_any_exit "skip on the token whatever the exit code" run_program.cmake
  [[if(rc STREQUAL "77" AND stdout MATCHES]] [[if(stdout MATCHES]])
mutant(skip_exit77_any_output "skip on exit 77 whatever the output" run_program.cmake
  [[if(rc STREQUAL "77" AND stdout MATCHES "^\\[SKIPPED\\] ([^\n]+)\n$")
    set(skip "${CMAKE_MATCH_1}")]]
  [[if(rc STREQUAL "77")
    set(skip "the program exited 77")]])
mutant(update_any_value "update mode on for any value" run_program.cmake
  [[if("$ENV{CLINIC_UPDATE_EXPECTED}" STREQUAL "1")]] [[if(DEFINED ENV{CLINIC_UPDATE_EXPECTED})]])
mutant(update_on_ci "update mode allowed on CI" run_program.cmake
  [[if(update AND DEFINED ENV{CI})]] [[if(FALSE)]])
mutant(sanitizer_skip_exit77 "sanitizer skip on exit 77" sanitizer.cmake
  [[if(rc STREQUAL "77" AND report MATCHES "(^|\n)\\[SKIPPED\\] ([^\n]+)\n")]]
  [[if(rc STREQUAL "77")]])
mutant(sanitizer_clean_any_status "sanitizer clean without its exit status" sanitizer.cmake
  [[if(NOT rc STREQUAL want_rc)]] [[if(FALSE)]])
mutant(compile_fail_builds "compile-fail accepting a successful build" compile_fail.cmake
  [[if(rc EQUAL 0)
  message(FATAL_ERROR]] [[if(FALSE)
  message(FATAL_ERROR]])
mutant(tour_exit0 "tour exits 0 when a row is not as documented" tour.cmake
  [[message(FATAL_ERROR "tour: ${failed} chapter(s) not as documented")]]
  [[message("tour: ${failed} chapter(s) not as documented")]])
mutant(tour_no_time_limit "tour without a time limit per program" run_program.cmake
  [[set(limit TIMEOUT ${TIMEOUT})]] [[set(limit "")]])
mutant(require_ignored "a requirement that does not fail" run_program.cmake
  [[if(req IN_LIST required OR "all" IN_LIST required)]] [[if(FALSE)]])
if(NOT ran)
  message(FATAL_ERROR "no mutant '${ONLY}' in ${CMAKE_CURRENT_LIST_FILE}")
endif()
