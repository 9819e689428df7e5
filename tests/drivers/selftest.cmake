# selftest.cmake -- the test drivers must be able to fail. Runs golden.cmake
# and sanitizer.cmake on fake programs and fake sanitizer reports, and checks
# that each one passes, fails or skips exactly when it should.
#   cmake -DWORK=<scratch dir> -P selftest.cmake
cmake_minimum_required(VERSION 3.25)
set(drivers "${CMAKE_CURRENT_LIST_DIR}")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(failures "")

# A fake program: a shell script that prints <text> and exits with <code>.
function(fake name text code)
  file(WRITE "${WORK}/${name}" "#!/bin/sh\nprintf '${text}'\nexit ${code}\n")
  file(CHMOD "${WORK}/${name}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endfunction()

# Runs a driver with the given -D options and checks how it ended:
# PASS (exit 0, no skip line), FAIL (non-zero exit) or SKIP (exit 0 with [SKIPPED]).
function(expect outcome what driver)
  execute_process(COMMAND "${CMAKE_COMMAND}" ${ARGN} -P "${drivers}/${driver}"
                  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    set(got FAIL)
  elseif(out MATCHES "\\[SKIPPED\\]")
    set(got SKIP)
  else()
    set(got PASS)
  endif()
  if(got STREQUAL outcome)
    message(STATUS "ok: ${what} -> ${got}")
  else()
    set(failures "${failures}  ${what}: expected ${outcome}, got ${got}\n${out}\n" PARENT_SCOPE)
  endif()
endfunction()

# golden.cmake: stdout and exit status must both match, byte for byte.
fake(ok "squares: 0 of 4 elements wrong\\n" 0)
fake(wrong "squares: 1 of 4 elements wrong\\n" 1)
fake(noisy "squares: 0 of 4 elements wrong\\n' >&2; printf '" 0)
fake(nogpu "[SKIPPED] no usable CUDA device\\n" 77)
file(WRITE "${WORK}/ok.out" "squares: 0 of 4 elements wrong\n[exit status: 0]\n")
set(g -DEXPECTED=${WORK}/ok.out -DWORK=${WORK}/actual)
expect(PASS "golden: same output, same status" golden.cmake -DPROGRAM=${WORK}/ok ${g})
expect(FAIL "golden: other output, other status" golden.cmake -DPROGRAM=${WORK}/wrong ${g})
expect(FAIL "golden: same text on stderr instead of stdout" golden.cmake -DPROGRAM=${WORK}/noisy ${g})
expect(SKIP "golden: no GPU" golden.cmake -DPROGRAM=${WORK}/nogpu ${g})
expect(FAIL "golden: no recorded output" golden.cmake -DPROGRAM=${WORK}/ok
       -DEXPECTED=${WORK}/missing.out -DWORK=${WORK}/actual)

# sanitizer.cmake: a clean run needs the tool's own summary line and the
# recorded exit status; a broken run needs the report and the error exit code.
fake(memcheck_clean "========= ERROR SUMMARY: 0 errors\\n" 0)
fake(memcheck_dirty "========= Invalid __global__ write of size 4 bytes\\n========= ERROR SUMMARY: 1 error\\n" 86)
fake(racecheck_clean "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\\n" 0)
fake(wrong_status "========= ERROR SUMMARY: 0 errors\\n" 3)
set(s -DPROGRAM=/bin/true -DEXPECTED=${WORK}/ok.out)
expect(PASS "sanitizer: clean memcheck" sanitizer.cmake -DSANITIZER=${WORK}/memcheck_clean -DTOOL=memcheck -DEXPECT=CLEAN ${s})
expect(FAIL "sanitizer: memcheck errors in a clean test" sanitizer.cmake -DSANITIZER=${WORK}/memcheck_dirty -DTOOL=memcheck -DEXPECT=CLEAN ${s})
expect(PASS "sanitizer: clean racecheck" sanitizer.cmake -DSANITIZER=${WORK}/racecheck_clean -DTOOL=racecheck -DEXPECT=CLEAN ${s})
expect(FAIL "sanitizer: racecheck without its own summary" sanitizer.cmake -DSANITIZER=${WORK}/memcheck_clean -DTOOL=racecheck -DEXPECT=CLEAN ${s})
expect(FAIL "sanitizer: clean, but not the recorded exit status" sanitizer.cmake -DSANITIZER=${WORK}/wrong_status -DTOOL=memcheck -DEXPECT=CLEAN ${s})
expect(PASS "sanitizer: broken program reported" sanitizer.cmake -DSANITIZER=${WORK}/memcheck_dirty -DTOOL=memcheck "-DEXPECT=Invalid __global__ write" ${s})
expect(FAIL "sanitizer: broken program not reported" sanitizer.cmake -DSANITIZER=${WORK}/memcheck_clean -DTOOL=memcheck "-DEXPECT=Invalid __global__ write" ${s})
expect(SKIP "sanitizer: no compute-sanitizer" sanitizer.cmake -DSANITIZER= -DTOOL=memcheck -DEXPECT=CLEAN ${s})

if(failures)
  message(FATAL_ERROR "the test drivers do not judge as they should:\n${failures}")
endif()
message(STATUS "the test drivers pass, fail and skip as they should")
