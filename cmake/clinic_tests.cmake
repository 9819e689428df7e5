# clinic_tests.cmake -- how the Clinic registers its kinds of test. Used by
# clinic_chapter() and by the harness self-test, which registers the same kinds
# of test over fake programs. Needs no compiler.
include_guard(GLOBAL)

if(NOT DEFINED CLINIC_DRIVERS) # the harness mutation test points this elsewhere
  get_filename_component(CLINIC_DRIVERS "${CMAKE_CURRENT_LIST_DIR}/../tests/drivers" ABSOLUTE)
endif()
find_program(CLINIC_DIFF diff)

# A test skips only when one of its drivers prints this word, which is made
# anew at each configure: no program can print it by accident or on purpose.
string(RANDOM LENGTH 16 ALPHABET "0123456789abcdef" _clinic_random)
set(CLINIC_SKIP_TOKEN "[clinic-skip-${_clinic_random}]")
string(REPLACE "[" "\\[" CLINIC_SKIP_REGEX "${CLINIC_SKIP_TOKEN}")
string(REPLACE "]" "\\]" CLINIC_SKIP_REGEX "${CLINIC_SKIP_REGEX}")

# Properties every driver-run test shares.
function(_clinic_test_properties name serial timeout labels)
  set_tests_properties("${name}" PROPERTIES LABELS "${labels}" TIMEOUT ${timeout}
                       SKIP_REGULAR_EXPRESSION "${CLINIC_SKIP_REGEX}")
  if(serial)
    set_tests_properties("${name}" PROPERTIES RUN_SERIAL TRUE) # it measures time
  endif()
endfunction()

# clinic_golden_test(<name> PROGRAM <exe or script> EXPECTED <file> REQUIRES <what>...
#                    LABELS <label>... [INTERPRETER <python> WHY <why none>]
#                    [ENVIRONMENT <VAR=value>...] [SERIAL] [RESOURCE_LOCK <name>])
# The program's stdout, stderr and exit status must equal EXPECTED. It skips
# only when the program took the no-GPU path (exit 77 and "[SKIPPED] <why>"),
# or when INTERPRETER is given but empty (then WHY says why).
function(clinic_golden_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "SERIAL" "PROGRAM;EXPECTED;INTERPRETER;WHY;RESOURCE_LOCK"
                        "REQUIRES;LABELS;ENVIRONMENT")
  set(interpreter "")
  if("INTERPRETER" IN_LIST ARGN)
    set(interpreter "-DINTERPRETER=${arg_INTERPRETER}" "-DWHY=${arg_WHY}")
  endif()
  list(JOIN arg_REQUIRES "," requires)
  add_test(NAME "${name}"
           COMMAND "${CMAKE_COMMAND}" "-DPROGRAM=${arg_PROGRAM}" ${interpreter}
                   "-DEXPECTED=${arg_EXPECTED}" "-DWORK=${CMAKE_CURRENT_BINARY_DIR}/${name}.actual"
                   "-DREQUIRES=${requires}" "-DSKIP_TOKEN=${CLINIC_SKIP_TOKEN}"
                   "-DDIFF=${CLINIC_DIFF}" -P "${CLINIC_DRIVERS}/golden.cmake")
  _clinic_test_properties("${name}" "${arg_SERIAL}" 120 "${arg_LABELS}")
  if(arg_ENVIRONMENT)
    set_tests_properties("${name}" PROPERTIES ENVIRONMENT "${arg_ENVIRONMENT}")
  endif()
  if(arg_RESOURCE_LOCK)
    set_tests_properties("${name}" PROPERTIES RESOURCE_LOCK "${arg_RESOURCE_LOCK}")
  endif()
endfunction()

# clinic_sanitizer_test(<name> PROGRAM <exe> TOOL <tool> EXPECT <CLEAN or regex>
#                       RECORDED <expected/x.out> LABELS <label>...)
# CLEAN: the tool finds nothing and the program exits as RECORDED says.
# <regex>: the tool reports errors and its report matches the regex.
function(clinic_sanitizer_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PROGRAM;TOOL;EXPECT;RECORDED" "LABELS")
  add_test(NAME "${name}"
           COMMAND "${CMAKE_COMMAND}" "-DSANITIZER=${CLINIC_SANITIZER}" "-DTOOL=${arg_TOOL}"
                   "-DPROGRAM=${arg_PROGRAM}" "-DEXPECT=${arg_EXPECT}"
                   "-DEXPECTED=${arg_RECORDED}" "-DSKIP_TOKEN=${CLINIC_SKIP_TOKEN}"
                   -P "${CLINIC_DRIVERS}/sanitizer.cmake")
  _clinic_test_properties("${name}" FALSE 600 "${arg_LABELS}")
endfunction()

# clinic_compile_fail_test(<name> TARGET <target> PATTERNS <regex>... EXPECTED <file>
#                          LABELS <label>...)
# Building TARGET must fail, and each regex must match one compiler diagnostic.
function(clinic_compile_fail_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TARGET;EXPECTED" "PATTERNS;LABELS")
  add_test(NAME "${name}"
           COMMAND "${CMAKE_COMMAND}" "-DBUILD_DIR=${CMAKE_BINARY_DIR}" "-DTARGET=${arg_TARGET}"
                   "-DPATTERNS=${arg_PATTERNS}" "-DEXPECTED=${arg_EXPECTED}"
                   -P "${CLINIC_DRIVERS}/compile_fail.cmake")
  # Builds in the same tree as other tests that build: one at a time.
  set_tests_properties("${name}" PROPERTIES LABELS "${arg_LABELS}" TIMEOUT 300
                       RESOURCE_LOCK build_tree)
endfunction()

# clinic_unavailable_test(<name> REQUIRES <what> WHY <why> LABELS <label>...)
# For something this configure did not find (compute-sanitizer, PyCUDA,
# Doxygen, a GPU): a test named "<name>: <why>", so that ctest's own summary
# says why tests were skipped. It skips, or fails when CLINIC_REQUIRE names <what>.
function(clinic_unavailable_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "REQUIRES;WHY" "LABELS")
  add_test(NAME "${name}: ${arg_WHY}"
           COMMAND "${CMAKE_COMMAND}" "-DREQUIRES=${arg_REQUIRES}" "-DWHY=${arg_WHY}"
                   "-DSKIP_TOKEN=${CLINIC_SKIP_TOKEN}" -P "${CLINIC_DRIVERS}/unavailable.cmake")
  _clinic_test_properties("${name}: ${arg_WHY}" FALSE 60 "${arg_LABELS}")
endfunction()
