# compile_fail.cmake -- a program that must not compile. Builds the target and
# asserts that the build fails and that every pattern matches one of the
# compiler's diagnostic lines (`broken.cu(12): error: ...`, directories
# removed). Patterns, not nvcc's whole text, so that they hold across compiler
# versions. The diagnostics are recorded into EXPECTED for the docs in update
# mode; the recorded file must satisfy the patterns too.
#   cmake -DBUILD_DIR=<dir> -DTARGET=<target> -DPATTERNS=<regex;...>
#         -DEXPECTED=<expected/broken.out> -P compile_fail.cmake
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/run_program.cmake")

# The diagnostic lines of a build log, whatever the generator echoes around
# them: only lines with "<file>.cu(<line>): " count, with the file's folders
# removed, so a path that contains "error" or spaces changes nothing.
function(diagnostics log out)
  set(found "")
  string(REPLACE ";" "\\;" log "${log}")
  string(REPLACE "\n" ";" lines "${log}")
  foreach(line IN LISTS lines)
    string(FIND "${line}" ".cu(" at)
    if(at LESS 0)
      continue()
    endif()
    string(SUBSTRING "${line}" 0 ${at} path)
    math(EXPR rest "${at} + 3")
    string(SUBSTRING "${line}" ${rest} -1 tail)
    if(NOT tail MATCHES "^\\([0-9]+\\): (error|warning)")
      continue()
    endif()
    string(REGEX REPLACE "^.*[/\\\\]" "" name "${path}")
    string(APPEND found "${name}.cu${tail}\n")
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# Fails unless every pattern matches a line of <text>.
function(require_patterns text what)
  foreach(pattern IN LISTS PATTERNS)
    if(NOT text MATCHES "(^|\n)[^\n]*${pattern}")
      message(FATAL_ERROR "${what}: no diagnostic matches '${pattern}':\n${text}")
    endif()
  endforeach()
endfunction()

execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}"
                OUTPUT_VARIABLE log ERROR_VARIABLE log RESULT_VARIABLE rc)
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but it must not:\n${log}")
endif()
diagnostics("${log}" got)
if(got STREQUAL "")
  message(FATAL_ERROR "${TARGET} failed to build, but without a compiler diagnostic:\n${log}")
endif()
require_patterns("${got}" "${TARGET}")
message(STATUS "${TARGET} failed to compile as it must:\n${got}")

clinic_update_mode(update)
if(update)
  file(WRITE "${EXPECTED}" "${got}[compilation failed]\n")
  message(STATUS "recorded ${EXPECTED}")
elseif(EXISTS "${EXPECTED}")
  file(READ "${EXPECTED}" recorded)
  require_patterns("${recorded}" "${EXPECTED} (the diagnostics the docs show)")
else()
  message(FATAL_ERROR "no recorded diagnostics ${EXPECTED}: record them with "
                      "`ctest --preset update-expected` (see CONTRIBUTING.md)")
endif()
