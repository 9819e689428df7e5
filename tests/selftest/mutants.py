#!/usr/bin/env python3
"""The self-test must catch the harness's likely bugs. Each mutant below is one
such bug, planted in a copy of the harness (cmake/, tests/drivers/,
tools/clinic_doctor/ (its process runner), tests/selftest/, bench/check_csv.py
and bench/results/); the self-test part that covers the planted file must then
fail. tests/CMakeLists.txt registers one test per mutant, harness.mutant.<id>.

A mutant of the drivers names the fake tests that catch it (a wrong verdict:
the part's own check): the self-test runs those alone, about a tenth of a
second each instead of the hundred-odd of the whole part. Should they not
catch it, the whole part runs, and the mutant's test fails either way:
survived, or caught only by other fake tests, which it then lists.

    mutants.py --work <scratch dir> --only <id> [--generator <gen>]
               [--cuda-compiler <nvcc>] [--seed <build folder>]
"""

import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
)
D = "tests/drivers/clinic_driver.py"
C = "cmake/clinic.cmake"
T = "cmake/clinic_tests.cmake"
L = "bench/check_csv.py"
P = "common/clinic_pycuda.py"
# The process runner and the sanitizer options the driver shares with the
# doctor and the exercise tool.
R = "tools/clinic_doctor/runs.py"
S = "tools/clinic_doctor/sanitizer.py"

# (id, what, file, original text, planted text, the fake tests that catch it:
# for the drivers part, () for the whole part)
MUTANTS = [
    (
        "golden_drops_stderr",
        "the golden transcript drops stderr",
        R,
        'text = out + ("[stderr]\\n" + err if err else "")',
        "text = out",
        ("fail.golden.stderr_not_recorded",),
    ),
    (
        "exit_always_1",
        "every non-zero exit recorded as 1",
        R,
        "str(rc) if rc >= 0 else",
        "str(min(rc, 1)) if rc >= 0 else",
        ("fail.golden.exit_2_not_1",),
    ),
    (
        "compare_ignores_blanks",
        "blanks ignored in the compare",
        D,
        "if actual == want:",
        "if actual.split() == want.split():",
        ("fail.golden.trailing_blank",),
    ),
    (
        "compare_ignores_order",
        "line order ignored in the compare",
        D,
        "if actual == want:",
        "if sorted(actual.splitlines()) == sorted(want.splitlines()):",
        ("fail.golden.line_order",),
    ),
    (
        "skip_line_starts",
        "a skip when stdout merely starts with the skip line",
        D,
        'm = re.fullmatch(r"\\[SKIPPED\\] ([^\\n]+)\\n", out)',
        'm = re.match(r"\\[SKIPPED\\] ([^\\n]+)\\n", out)',
        ("fail.golden.skip_then_more",),
    ),
    (
        "skip_line_contained",
        "a skip when stdout merely contains the skip line",
        D,
        'm = re.fullmatch(r"\\[SKIPPED\\] ([^\\n]+)\\n", out)',
        'm = re.search(r"\\[SKIPPED\\] ([^\\n]+)\\n", out)',
        ("fail.golden.more_then_skip",),
    ),
    (
        "skip_with_stderr",
        "a skip although stderr is not empty",
        D,
        'and m and err == ""',
        "and m",
        ("fail.golden.skip_and_stderr",),
    ),
    (
        "skip_any_exit",
        "a skip on the skip line whatever the exit status",
        D,
        "if status == str(SKIP_EXIT) and m",
        "if m",
        ("fail.golden.skip_line_1",),
    ),
    (
        "no_tool_option",
        "--tool not passed to compute-sanitizer",
        S,
        '        "--tool",\n        tool,\n',
        "",
        ("pass.sanitizer.tool_and_leak_check_passed",),
    ),
    (
        "no_leak_check",
        "--leak-check full not passed to compute-sanitizer",
        S,
        'args += ["--leak-check", "full"]',
        "args += []",
        ("pass.sanitizer.tool_and_leak_check_passed",),
    ),
    (
        "sanitizer_eight_queues",
        "the sanitizer tests run with the default eight work queues",
        D,
        'ONE_QUEUE = {"CUDA_DEVICE_MAX_CONNECTIONS": "1"}',
        "ONE_QUEUE = {}",
        ("pass.sanitizer.one_work_queue",),
    ),
    (
        "golden_one_queue_ignored",
        "golden --one-queue leaves the driver's eight work queues",
        D,
        "extra_env=ONE_QUEUE if a.one_queue",
        "extra_env=None if a.one_queue",
        ("pass.golden.one_queue",),
    ),
    (
        "queues_never_one",
        "golden tests keep eight work queues outside STREAMS chapters",
        C,
        "set(queues ONE_QUEUE)",
        'set(queues "")',
        (),
    ),
    (
        "queues_always_one",
        "STREAMS chapters' golden tests run with one work queue",
        C,
        '    set(queues "")\n',
        "",
        (),
    ),
    (
        "fault_lock_never",
        "FAULTS: the tests of a faulting program not locked",
        T,
        "set(${var} RESOURCE_LOCK gpu_fault PARENT_SCOPE)",
        'set(${var} "" PARENT_SCOPE)',
        (),
    ),
    (
        "fault_lock_always",
        "FAULTS: the tests of every program locked, fault or not",
        T,
        "  if(fault)\n",
        "  if(faults)\n",
        (),
    ),
    (
        "fault_lock_any_exit",
        "FAULTS: a program that exits non-zero without a fault locked",
        T,
        'MATCH "illegal',
        'MATCH "exit status: [1-9]|illegal',
        (),
    ),
    (
        "fault_lock_memcheck",
        "FAULTS: memcheck, which stops the access, takes the lock",
        C,
        'set(tool_lock "")',
        'set(tool_lock "${lock}")',
        (),
    ),
    (
        "fault_lock_sanitizer_skipped",
        "FAULTS: the sanitizer tests of a faulting program not locked",
        C,
        "${expect} ${tool_lock}\n",
        "${expect}\n",
        (),
    ),
    (
        "broken_without_errors_found",
        "a broken-program sanitizer test passing without errors found",
        D,
        "if status != str(SANITIZER_ERRORS) and not hazards:",
        "if False:",
        ("fail.sanitizer.bug_reported_without_errors_found",),
    ),
    (
        "fixed_status_zero",
        "the fixed program's sanitizer exit status compared with 0, "
        "not its record",
        D,
        "if status != m.group(1):",
        'if status != "0":',
        ("pass.sanitizer.clean_status_as_recorded",),
    ),
    (
        "sanitizer_patterns_any_order",
        "the sanitizer patterns matched in any order",
        D,
        ".search(report, at)",
        ".search(report)",
        ("fail.sanitizer.patterns_out_of_order",),
    ),
    (
        "compile_fail_whole_log",
        "compile-fail patterns matched against the whole log",
        D,
        "got = diagnostics(p.stdout)",
        "got = p.stdout.splitlines()",
        ("fail.compile_fail.pattern_only_in_command_line",),
    ),
    (
        "compile_fail_any_pattern",
        "compile-fail: any one pattern instead of every one",
        D,
        "if not any(re.search(pattern, line) for line in lines):",
        "if not any(re.search(q, line) for q in pats for line in lines):",
        ("fail.compile_fail.one_of_two_patterns",),
    ),
    (
        "compile_fail_error_only",
        "compile-fail patterns replaced by 'error'",
        D,
        "pats = patterns(a.patterns_file)",
        'pats = ["error"]',
        ("fail.compile_fail.other_diagnostic",),
    ),
    (
        "compile_fail_builds",
        "compile-fail accepting a successful build",
        D,
        "if p.returncode == 0:",
        "if False:",
        ("fail.compile_fail.compiles",),
    ),
    (
        "environment_leaks",
        "CLINIC_DEBUG_SYNC and friends reach the programs",
        R,
        "if k not in SCRUBBED}",
        "if True}",
        ("pass.golden.environment_scrubbed",),
    ),
    (
        "update_any_value",
        "update mode on for any value of CLINIC_UPDATE_EXPECTED",
        D,
        "if value != UPDATE_TOKEN:",
        "if False:",
        ("fail.golden.update_mode_off_for_yes",),
    ),
    (
        "update_on_empty_ci",
        "update mode allowed when CI is set but empty",
        D,
        'if "CI" in os.environ:',
        'if os.environ.get("CI"):',
        ("fail.golden.update_mode_refused_on_empty_ci",),
    ),
    (
        "update_read_only",
        "update mode into a read-only checkout",
        D,
        "not os.path.isdir(folder)\n        or not os.access(folder, os.W_OK)\n"
        "        or not os.stat(folder).st_mode & 0o222\n",
        "not os.path.isdir(folder)\n",
        ("fail.golden.update_mode_refused_read_only",),
    ),
    (
        "require_ignored",
        "a requirement that does not fail",
        D,
        "if named:",
        "if False:",
        ("fail.golden.no_gpu_required",),
    ),
    (
        "require_unknown_accepted",
        "an unknown CLINIC_REQUIRE word accepted",
        D,
        "if unknown:",
        "if False:",
        ("fail.require.typo",),
    ),
    (
        "require_case_blanks",
        "CLINIC_REQUIRE's case and blanks not tolerated",
        D,
        "w.strip().lower()",
        "w",
        ("pass.require.known",),
    ),
    (
        "require_cause_only",
        "a requirement judged by the skip's cause alone",
        D,
        "judged = {cause} | set(needs)",
        "judged = {cause}",
        ("fail.sanitizer.no_gpu_sanitizer_required",),
    ),
    (
        "hmm_is_gpu",
        "an HMM/ATS skip counted as a missing GPU",
        D,
        '\\(HMM or ATS\\)"), "no-hmm"),',
        '\\(HMM or ATS\\)"), "gpu"),',
        ("fail.golden.hmm_required",),
    ),
    (
        "multigpu_is_gpu",
        "a multigpu skip (too few GPUs) counted as a missing GPU",
        D,
        '     "multigpu"),  # require_gpus_or_skip()',
        '     "gpu"),  # require_gpus_or_skip()',
        ("fail.golden.multigpu_required",),
    ),
    (
        "cupy_missing_is_gpu",
        "a missing CuPy counted as a missing GPU",
        D,
        'cannot be imported)"), "cupy"),',
        'cannot be imported)"), "gpu"),',
        ("fail.golden.cupy_missing_required",),
    ),
    (
        "reason_cause_keeps_needs",
        "a skip with a named cause still judged by the test's needs",
        D,
        "cause, needs = word, []",
        "cause = word",
        ("skip.golden.hmm_gpu_required",),
    ),
    (
        "twin_without_python_is_pycuda",
        "a CuPy twin without Python skipped as a missing PyCUDA",
        D,
        'skip((library or ["pycuda"])[0], a.requires, a.why)',
        'skip("pycuda", a.requires, a.why)',
        ("skip.golden.cupy_no_python",),
    ),
    (
        "probe_drops_argument",
        "the probe runs its program without --arg",
        D,
        "run([a.program] + a.arg)",
        "run([a.program])",
        ("skip.probe.multigpu",),
    ),
    (
        "sanitizer_requires_ignored",
        "a sanitizer test judged as needing only gpu and sanitizer",
        D,
        "    needs = a.requires\n",
        '    needs = ["gpu", "sanitizer"]\n',
        ("fail.sanitizer.multigpu_no_gpu_required",),
    ),
    (
        "probe_requires_ignored",
        "a probe judged as needing only gpu",
        D,
        'skip("gpu", a.requires, why)\n    if status != "0":',
        'skip("gpu", ["gpu"], why)\n    if status != "0":',
        ("fail.probe.multigpu_no_gpu_required",),
    ),
    (
        "multigpu_sanitizer_not_required",
        "MULTIGPU sanitizer tests not requiring multigpu",
        C,
        "REQUIRES gpu ${multigpu} sanitizer",
        "REQUIRES gpu sanitizer",
        (),
    ),
    (
        "cupy_no_gpu_blamed_on_cupy",
        "a CuPy twin without a GPU skipping as if CuPy were missing",
        P,
        'skip("cudaGetDeviceCount failed (CuPy): %s"',
        'skip("CuPy cannot be imported: %s"',
        ("fail.golden.cupy_no_gpu_required",),
    ),
    (
        "cupy_error_uncaught",
        "a CuPy CUDA error not turned into exit 2",
        P,
        "found += [cuda.runtime.CUDARuntimeError, cuda.driver.CUDADriverError]",
        "found += []",
        ("pass.golden.cupy_error_exit_2",),
    ),
    (
        "unusable_gpu_skips",
        "a present but unusable GPU skips",
        D,
        "if evidence:",
        "if False:",
        ("fail.golden.no_gpu_but_gpu_present",),
    ),
    (
        "tour_exit0",
        "the tour exits 0 when a row is not as documented",
        D,
        "if failed:",
        "if False:",
        ("fail.tour.broken_not_broken",),
    ),
    (
        "tour_stops_at_skip",
        "the tour stops judging at the first skip",
        D,
        'note = "  (skipped: %s)" % reasons[0]',
        "break",
        ("fail.tour.later_chapter_wrong",),
    ),
    (
        "tour_no_time_limit",
        "the tour without a time limit per program",
        D,
        "run([program], timeout=timeout)",
        "run([program])",
        ("fail.tour.hangs",),
    ),
    (
        "skip_not_77",
        "a skip reported as a pass",
        T,
        "SKIP_RETURN_CODE 77",
        "SKIP_RETURN_CODE 78",
        ("skip.golden.no_gpu",),
    ),
    (
        "no_broken_golden",
        "no broken golden tests registered",
        C,
        "  foreach(prog IN LISTS programs)\n"
        '    _clinic_fault_lock(lock ${arg_FAULTS} "${exp}/${prog}.out")\n'
        "    clinic_golden_test",
        "  foreach(prog fixed)\n"
        '    _clinic_fault_lock(lock ${arg_FAULTS} "${exp}/${prog}.out")\n'
        "    clinic_golden_test",
        (),
    ),
    (
        "variants_not_registered",
        "clinic_chapter(VARIANTS ...) registering no golden test",
        C,
        "  list(APPEND programs ${arg_VARIANTS})\n",
        "",
        (),
    ),
    (
        "variants_under_every_tool",
        "a variant run under every sanitizer tool, as if it were fixed",
        C,
        'elseif(NOT prog STREQUAL "fixed")',
        'elseif(prog STREQUAL "broken")',
        (),
    ),
    (
        "no_pycuda_twins",
        "PyCUDA twins not registered",
        C,
        "foreach(twin broken.py fixed.py broken_cupy.py",
        "foreach(twin broken_cupy.py",
        (),
    ),
    (
        "no_cupy_twins",
        "CuPy twins not registered",
        C,
        "broken.py fixed.py broken_cupy.py fixed_cupy.py broken_torch.py",
        "broken.py fixed.py broken_torch.py",
        (),
    ),
    (
        "cupy_twins_as_pycuda",
        "CuPy twins registered as PyCUDA twins (label, requirement, why)",
        C,
        'if(twin MATCHES "_(cupy|torch|numba)\\\\.py$")',
        'if(twin MATCHES "_(torch|numba)\\\\.py$")',
        (),
    ),
    (
        "multigpu_not_required",
        "MULTIGPU golden tests not requiring multigpu",
        C,
        'EXPECTED "${exp}/${prog}.out" REQUIRES gpu ${multigpu}',
        'EXPECTED "${exp}/${prog}.out" REQUIRES gpu',
        (),
    ),
    (
        "multigpu_sanitizer_unlabelled",
        "MULTIGPU sanitizer tests without the multigpu label",
        C,
        "LABELS sanitizer ${tool} ${id} ${multigpu})",
        "LABELS sanitizer ${tool} ${id})",
        (),
    ),
    (
        "multigpu_flag_ignored",
        "clinic_chapter(MULTIGPU) labelling nothing",
        C,
        "    set(multigpu multigpu)\n",
        "",
        (),
    ),
    (
        "only_memcheck",
        "only memcheck registered",
        C,
        "set(CLINIC_SANITIZER_TOOLS memcheck racecheck initcheck synccheck)",
        "set(CLINIC_SANITIZER_TOOLS memcheck)",
        (),
    ),
    (
        "broken_sanitizer_ignored",
        "expected/broken.<tool> (BROKEN_SANITIZER) ignored",
        C,
        'if(EXISTS "${exp}/${prog}.${tool}")',
        'if(EXISTS "${exp}/${prog}.${tool}" AND prog STREQUAL "fixed")',
        (),
    ),
    (
        "fixed_expectation_ignored",
        "expected/fixed.<tool> (FIXED_SANITIZER) ignored",
        C,
        'if(EXISTS "${exp}/${prog}.${tool}")',
        'if(EXISTS "${exp}/${prog}.${tool}" AND prog STREQUAL "broken")',
        (),
    ),
    (
        "compile_errors_elsewhere",
        "compile-fail patterns not taken from expected/broken.compile-errors",
        C,
        'PATTERNS_FILE "${exp}/broken.compile-errors"',
        'PATTERNS_FILE "${exp}/broken.out"',
        (),
    ),
    (
        "one_tool_for_all",
        "every sanitizer test run with memcheck",
        T,
        '"--tool=${arg_TOOL}"',
        '"--tool=memcheck"',
        ("fail.sanitizer.racecheck_needs_its_own_summary",),
    ),
    (
        "unknown_arguments_accepted",
        "clinic_chapter() accepting unknown arguments",
        C,
        "if(arg_UNPARSED_ARGUMENTS)",
        "if(FALSE)",
        (),
    ),
    (
        "lab_data_unchecked",
        "the lab's data-correct check dropped",
        L,
        'if r["data_ok"] != "1":\n            raise Fail(\n'
        '                "%s: the copied data',
        "if False:\n            raise Fail(\n"
        '                "%s: the copied data',
        (),
    ),
    (
        "lab_pipeline_data_unchecked",
        "the lab's pipeline data check dropped",
        L,
        'if r["data_ok"] != "1":\n            raise Fail(\n'
        '                "%s: the pipeline',
        "if False:\n            raise Fail(\n"
        '                "%s: the pipeline',
        (),
    ),
    (
        "lab_pinned_unchecked",
        "the lab's pinned > pageable check dropped",
        L,
        "if not pinned > pageable:",
        "if False:",
        (),
    ),
    (
        "lab_overlap_unchecked",
        "the lab's overlap check dropped",
        L,
        "if not best * OVERLAP_MARGIN <= medians[1]:",
        "if False:",
        (),
    ),
    (
        "lab_accepts_semicolon",
        "the lab's reader accepting ';' and '\"'",
        L,
        "if re.search(r'[;\"]', text):",
        "if False:",
        (),
    ),
]
PART = {D: "drivers", T: "drivers", C: "registration", L: "lab", P: "drivers",
        R: "drivers", S: "drivers"}
# Mutants whose file's part is not the one that checks them: the fault lock
# lives in clinic_tests.cmake, but registration (clinic_chapter) applies it.
PART_OF_MUTANT = {"fault_lock_never": "registration",
                  "fault_lock_always": "registration",
                  "fault_lock_any_exit": "registration"}
COPY = (
    "cmake",
    "common/clinic_pycuda.py",
    "tests/drivers",
    "tests/selftest",
    "tools/clinic_doctor",
    "bench/check_csv.py",
    "bench/results",
)


def selftest(a, tree, part, work, tests=()):
    """Runs the planted tree's self-test <part> (only the fake <tests>, when
    given) in <work>."""
    command = [
        sys.executable,
        os.path.join(tree, "tests", "selftest", "selftest.py"),
        "--work",
        work,
        "--part",
        part,
        "--generator",
        a.generator,
        "--cuda-compiler",
        a.cuda_compiler,
        "--seed",
        a.seed,
    ]
    if tests:
        command += ["--tests"] + list(tests)
    return subprocess.run(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def caught(r):
    """True when the self-test run <r> judged the harness wrong: exit status
    1 with its verdict, not a crash."""
    return r.returncode == 1 and "does not judge as it should" in r.stdout


def reasons(r):
    """The first lines of what the self-test run <r> found wrong."""
    return [
        line
        for line in r.stdout.splitlines()
        if line.startswith("  ")
        and "CTest says" in line
        or line.startswith("  ")
        and not line.startswith("   ")
    ][:8]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work")
    p.add_argument("--only")
    p.add_argument("--generator", default="")
    p.add_argument("--cuda-compiler", default="")
    p.add_argument("--seed", default="")
    p.add_argument("--list", action="store_true", help="print the mutant ids")
    a = p.parse_args()
    if a.list:
        print(" ".join(m[0] for m in MUTANTS))
        return 0
    found = [m for m in MUTANTS if m[0] == a.only]
    if not found:
        print("no mutant '%s' in %s" % (a.only, __file__))
        return 1
    _, what, path, original, planted, tests = found[0]
    tree = os.path.join(os.path.abspath(a.work), "tree")
    shutil.rmtree(a.work, ignore_errors=True)
    for part in COPY:
        src, dst = os.path.join(ROOT, part), os.path.join(tree, part)
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(src, dst)
    with open(os.path.join(tree, path)) as f:
        code = f.read()
    if code.count(original) != 1:
        print(
            "mutant '%s': '%s' is not once in %s; update this test"
            % (what, original, path)
        )
        return 1
    with open(os.path.join(tree, path), "w") as f:
        f.write(code.replace(original, planted))
    part = PART_OF_MUTANT.get(a.only, PART[path])
    work = os.path.join(a.work, "selftest")
    r = selftest(a, tree, part, work, tests)
    if tests and not caught(r):
        whole = selftest(a, tree, part, work + "-whole")
        if caught(whole):
            print(
                "the self-test catches the mutant '%s' in %s, but not with "
                "the fake tests named for it in %s (%s):\n%s\n"
                "the whole part catches it with:\n%s"
                % (what, path, __file__, ", ".join(tests), r.stdout,
                   "\n".join(reasons(whole)))
            )
            return 1
        r = whole
    if not caught(r):
        print(
            "the self-test passes with the mutant '%s' in %s:\n%s"
            % (what, path, r.stdout)
        )
        return 1
    print("killed: %s\n%s" % (what, "\n".join(reasons(r))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
