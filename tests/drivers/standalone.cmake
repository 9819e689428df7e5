# standalone.cmake -- a chapter built on its own registers the same tests as
# it does in the whole project.
#   cmake -DWHOLE=<project build dir> -DALONE=<standalone build dir> -DLABEL=chNN -P standalone.cmake
cmake_minimum_required(VERSION 3.25)
function(test_names dir out)
  execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" --test-dir "${dir}" -N ${ARGN}
                  OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ctest -N failed in ${dir}:\n${listing}")
  endif()
  string(REGEX MATCHALL "Test +#[0-9]+: [^\n]+" lines "${listing}")
  list(TRANSFORM lines REPLACE "^Test +#[0-9]+: " "")
  list(SORT lines)
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()
test_names("${WHOLE}" whole -L "^${LABEL}$" -LE "^exercise") # exercise checks: whole project only
test_names("${ALONE}" alone)
if(NOT whole)
  message(FATAL_ERROR "the whole project has no test labelled ${LABEL}")
endif()
if(NOT whole STREQUAL alone)
  message(FATAL_ERROR "alone: ${alone}\nin the project: ${whole}")
endif()
list(LENGTH alone n)
message(STATUS "the chapter alone registers the same ${n} tests as in the project: ${alone}")
