# selftest.cmake -- the test drivers must be able to fail. Configures the
# fake-program project tests/selftest with the drivers in DRIVERS, runs CTest
# on it, and checks that CTest itself reports every test as its name says:
# pass.* Passed, fail.* Failed, skip.* Skipped.
#   cmake -DWORK=<scratch dir> [-DDRIVERS=<drivers dir>] [-DGENERATOR=<gen>] -P selftest.cmake
cmake_minimum_required(VERSION 3.25)
get_filename_component(project "${CMAKE_CURRENT_LIST_DIR}/../selftest" ABSOLUTE)
if(NOT DRIVERS)
  set(DRIVERS "${CMAKE_CURRENT_LIST_DIR}")
endif()
set(generator "")
if(GENERATOR)
  set(generator -G "${GENERATOR}")
endif()
file(REMOVE_RECURSE "${WORK}")
# The outer run's switches must not reach the fake tests: each sets its own.
set(clean_env "${CMAKE_COMMAND}" -E env --unset=CLINIC_REQUIRE --unset=CLINIC_UPDATE_EXPECTED --unset=CI)
execute_process(COMMAND ${clean_env} "${CMAKE_COMMAND}" -S "${project}" -B "${WORK}" ${generator}
                        "-DCLINIC_DRIVERS=${DRIVERS}"
                OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not configure the self-test project:\n${out}")
endif()
execute_process(COMMAND ${clean_env} "${CMAKE_CTEST_COMMAND}" --test-dir "${WORK}" -j 4
                        --output-junit "${WORK}/junit.xml"
                OUTPUT_VARIABLE log ERROR_VARIABLE log)

file(READ "${WORK}/junit.xml" junit)
string(REGEX MATCHALL "<testcase name=\"[^\"]*\" classname=\"[^\"]*\" time=\"[^\"]*\" status=\"[a-z]+\"" cases "${junit}")
set(wrong "")
set(count 0)
foreach(case IN LISTS cases)
  string(REGEX REPLACE "^<testcase name=\"([^\"]*)\".* status=\"([a-z]+)\"$" "\\1;\\2" pair "${case}")
  list(GET pair 0 name)
  list(GET pair 1 status)
  string(REGEX MATCH "^(pass|fail|skip)\\." want "${name}")
  set(got "${status}")
  if(status STREQUAL "run")
    set(got "pass.")
  elseif(status STREQUAL "fail")
    set(got "fail.")
  elseif(status STREQUAL "notrun")
    set(got "skip.")
  endif()
  if(NOT got STREQUAL want)
    string(APPEND wrong "  ${name}: CTest says ${got} (${status}), it must be ${want}\n")
  endif()
  math(EXPR count "${count} + 1")
endforeach()
if(count LESS 50)
  message(FATAL_ERROR "the self-test project ran only ${count} tests:\n${log}")
endif()

# The tour stops a program that hangs (12 s) at its time limit (2 s here).
if(junit MATCHES "<testcase name=\"fail.tour.hangs\" classname=\"[^\"]*\" time=\"([0-9]+)")
  if(CMAKE_MATCH_1 GREATER 8)
    string(APPEND wrong "  fail.tour.hangs: took ${CMAKE_MATCH_1} s; the tour did not stop the hung program\n")
  endif()
endif()

# A test that recorded must have recorded the real transcript; the others none.
file(READ "${WORK}/fakes/recorded.out" recorded)
if(NOT recorded STREQUAL "squares: 1 of 4 elements wrong\n[exit status: 1]\n")
  string(APPEND wrong "  pass.golden.update_mode_records: recorded '${recorded}'\n")
endif()
foreach(file update_0.out update_yes.out update_true.out update_ON.out ci.out ok.out)
  file(READ "${WORK}/fakes/${file}" text)
  if(NOT text STREQUAL "squares: 0 of 4 elements wrong\n[exit status: 0]\n")
    string(APPEND wrong "  ${file} was overwritten outside update mode\n")
  endif()
endforeach()

if(wrong)
  message(FATAL_ERROR "the test drivers do not judge as they should:\n${wrong}\nCTest's log:\n${log}")
endif()
message(STATUS "the test drivers pass, fail and skip as they should: ${count} verdicts checked")
