# clinic_tests.cmake -- how the Clinic registers its kinds of test. Used by
# clinic_chapter() and by the harness self-test, which registers the same kinds
# of test over fake programs. Needs no compiler. Every test runs one
# subcommand of tests/drivers/clinic_driver.py, which exits 77 to skip.
include_guard(GLOBAL)
# CMake 3.31 and later: a keyword given "" (WHY, when the library is there)
# keeps its empty value, as 3.25 does, without a warning at every test.
if(POLICY CMP0174)
  cmake_policy(SET CMP0174 NEW)
endif()

if(NOT DEFINED CLINIC_DRIVERS) # the harness mutation test points this elsewhere
  get_filename_component(CLINIC_DRIVERS "${CMAKE_CURRENT_LIST_DIR}/../tests/drivers" ABSOLUTE)
endif()
find_package(Python3 3.8 COMPONENTS Interpreter REQUIRED)
# A launcher in front of Python (pyenv's shims) costs about 0.2 s a start, a
# test each: the tests run the interpreter it starts, its sys.executable.
execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import sys; print(sys.executable)"
                OUTPUT_VARIABLE python OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed)
if(NOT failed AND EXISTS "${python}")
  set(Python3_EXECUTABLE "${python}")
endif()
set(CLINIC_DRIVER "${Python3_EXECUTABLE}" "${CLINIC_DRIVERS}/clinic_driver.py")
find_program(CLINIC_DIFF diff) # the docs show each chapter's fix with it

# _clinic_lock(<name> <lock>): when <lock> is given, the test runs one at a time
# with the others that take it, and starts early (COST): left to the end, such
# tests would wait for the rest, then run in a row.
function(_clinic_lock name lock)
  if(lock)
    set_tests_properties("${name}" PROPERTIES RESOURCE_LOCK "${lock}" COST 500)
  endif()
endfunction()

# _clinic_test(<name> <timeout> <labels> <driver arguments>...): one driver test.
function(_clinic_test name timeout labels)
  add_test(NAME "${name}" COMMAND ${CLINIC_DRIVER} ${ARGN})
  set_tests_properties("${name}" PROPERTIES LABELS "${labels}" TIMEOUT ${timeout}
                       SKIP_RETURN_CODE 77)
endfunction()

# clinic_golden_test(<name> PROGRAM <exe or script> EXPECTED <file> REQUIRES <what>...
#                    LABELS <label>... [INTERPRETER <python> WHY <why none>]
#                    [ENVIRONMENT <VAR=value>...] [SERIAL] [ONE_QUEUE] [RESOURCE_LOCK <name>])
# The program's stdout, stderr and exit status must equal EXPECTED. It skips
# only when the program took the no-GPU path (exit 77, stdout exactly
# "[SKIPPED] <why>", stderr empty), or when INTERPRETER is given but empty.
# ONE_QUEUE: the program runs with one hardware work queue (--one-queue).
function(clinic_golden_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "SERIAL;ONE_QUEUE" "PROGRAM;EXPECTED;INTERPRETER;WHY;RESOURCE_LOCK"
                        "REQUIRES;LABELS;ENVIRONMENT")
  set(interpreter "")
  if("INTERPRETER" IN_LIST ARGN)
    set(interpreter "--interpreter=${arg_INTERPRETER}" "--why=${arg_WHY}")
  endif()
  if(arg_ONE_QUEUE)
    list(APPEND interpreter --one-queue)
  endif()
  list(JOIN arg_REQUIRES "," requires)
  _clinic_test("${name}" 120 "${arg_LABELS}" golden "--program=${arg_PROGRAM}" ${interpreter}
               "--expected=${arg_EXPECTED}" "--requires=${requires}")
  set_tests_properties("${name}" PROPERTIES RUN_SERIAL "${arg_SERIAL}"
                       ENVIRONMENT "${arg_ENVIRONMENT}")
  _clinic_lock("${name}" "${arg_RESOURCE_LOCK}")
  if(arg_SERIAL) # alone: starts before everything else (see _clinic_lock)
    set_tests_properties("${name}" PROPERTIES COST 1000)
  endif()
endfunction()

# clinic_sanitizer_test(<name> PROGRAM <exe> TOOL <tool> RECORDED <expected/x.out>
#                       [EXPECT_FILE <expected/x.tool>] [REPORT_RECORD <expected/x.tool.out>]
#                       [REQUIRES <what>...] LABELS <label>... [RESOURCE_LOCK <name>])
# Without EXPECT_FILE: the tool finds nothing and the program exits as RECORDED
# says. With it: the tool finds errors and its report matches every line of it,
# in order; in update mode the masked report is recorded into REPORT_RECORD.
# REQUIRES (gpu sanitizer unless given) says which CLINIC_REQUIRE words forbid a skip.
function(clinic_sanitizer_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PROGRAM;TOOL;RECORDED;EXPECT_FILE;REPORT_RECORD;RESOURCE_LOCK"
                        "LABELS;REQUIRES")
  if(NOT arg_REQUIRES)
    set(arg_REQUIRES gpu sanitizer)
  endif()
  list(JOIN arg_REQUIRES "," requires)
  set(sanitizer "${CLINIC_SANITIZER}")
  if(NOT sanitizer) # also "CLINIC_SANITIZER-NOTFOUND": the driver then skips
    set(sanitizer "")
  endif()
  _clinic_test("${name}" 600 "${arg_LABELS}" sanitizer "--sanitizer=${sanitizer}" "--requires=${requires}"
               "--tool=${arg_TOOL}" "--program=${arg_PROGRAM}" "--recorded=${arg_RECORDED}"
               "--expect-file=${arg_EXPECT_FILE}" "--report-record=${arg_REPORT_RECORD}")
  _clinic_lock("${name}" "${arg_RESOURCE_LOCK}")
endfunction()

# clinic_compile_fail_test(<name> TARGET <target> PATTERNS_FILE <file> EXPECTED <file>
#                          LABELS <label>...)
# Building TARGET must fail, and each line of PATTERNS_FILE (a regex) must
# match one compiler diagnostic line.
function(clinic_compile_fail_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TARGET;EXPECTED;PATTERNS_FILE" "LABELS")
  _clinic_test("${name}" 300 "${arg_LABELS}" compile-fail "--cmake=${CMAKE_COMMAND}"
               "--build-dir=${CMAKE_BINARY_DIR}" "--target=${arg_TARGET}"
               "--patterns-file=${arg_PATTERNS_FILE}" "--expected=${arg_EXPECTED}")
  # Builds in the same tree as other tests that build: one at a time.
  set_tests_properties("${name}" PROPERTIES RESOURCE_LOCK build_tree)
endfunction()

# clinic_unavailable_test(<name> REQUIRES <what> WHY <why> LABELS <label>...)
# For something this configure did not find (compute-sanitizer, PyCUDA,
# Doxygen, a GPU): a test named "<name>: <why>", so that ctest's own summary
# says why tests were skipped. It skips, or fails when CLINIC_REQUIRE names <what>.
function(clinic_unavailable_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "REQUIRES;WHY" "LABELS")
  _clinic_test("${name}: ${arg_WHY}" 60 "${arg_LABELS}" unavailable
               "--requires=${arg_REQUIRES}" "--why=${arg_WHY}")
endfunction()

# _clinic_lacks(<WORD> <what is> <pip names> <module>...): sets the global
# CLINIC_<WORD>_MISSING to why CLINIC_PYTHON cannot find the modules, or "".
# Finding numba.cuda imports numba, so a numba that fails to import with the
# installed numpy counts as missing too.
# For clinic_find_tools() (clinic.cmake); the twins' own skips
# (common/clinic_pycuda.py) use the same words.
function(_clinic_lacks word what pip)
  get_property(python GLOBAL PROPERTY CLINIC_PYTHON)
  set(why "no Python 3 found (set Python3_EXECUTABLE)")
  if(python)
    list(JOIN ARGN "','" modules)
    execute_process(COMMAND "${python}" -c "import importlib.util as u, sys; sys.exit(any(u.find_spec(m) is None for m in ['${modules}']))"
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    set(why "")
    if(NOT rc STREQUAL "0")
      set(why "${what} not installed, or fails to import, for ${python} (pip install ${pip})")
    endif()
  endif()
  set_property(GLOBAL PROPERTY CLINIC_${word}_MISSING "${why}")
endfunction()

# _clinic_fault_lock(<var> <faults> <record>): for a FAULTS chapter (<faults>
# true), "RESOURCE_LOCK gpu_fault" when <record> names a fault that kills the
# context (an illegal or misaligned address, a launch failure, a trap), or is
# not recorded yet: such programs fault one at a time (docs/limits.md).
function(_clinic_fault_lock var faults record)
  set(fault "")
  if(faults AND EXISTS "${record}")
    file(READ "${record}" text)
    string(TOLOWER "${text}" text)
    string(REGEX MATCH "illegal|misaligned|launch[ _]?fail|trap|assert" fault "${text}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${record}")
  elseif(faults)
    set(fault "not recorded")
  endif()
  set(${var} "" PARENT_SCOPE)
  if(fault)
    set(${var} RESOURCE_LOCK gpu_fault PARENT_SCOPE)
  endif()
endfunction()
