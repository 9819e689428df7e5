#!/usr/bin/env python3
"""The Clinic's test drivers: one subcommand per kind of test.

    golden       a program's transcript (stdout, stderr, exit status) equals
                 its record
    sanitizer    a program under one compute-sanitizer tool: clean, or the
                 bug reported
    compile-fail a target that must not compile, with the expected diagnostics
    probe        is there a usable GPU?
    unavailable  something the configure step did not find
    require      CLINIC_REQUIRE is well formed
    tour         every chapter's programs, one row each

Every subcommand exits 0 (passed), 1 (failed) or 77 (skipped: the tests set
SKIP_RETURN_CODE 77). A test skips only through skip() below, which decides
with CLINIC_REQUIRE whether the skip is allowed.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The process runner, the transcript format and compute-sanitizer's options
# are the doctor's (tools/clinic_doctor), shared with the exercise tool.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), "tools"))
from clinic_doctor import runs, sanitizer as sanitizers  # noqa: E402

SCRUBBED = runs.SCRUBBED
SANITIZER_ERRORS = sanitizers.FOUND_ERRORS
status_text = runs.status_text
transcript = runs.transcript
sanitizer_args = sanitizers.sanitizer_args
find_sanitizer = sanitizers.find_sanitizer

SKIP_EXIT = 77
# The words CLINIC_REQUIRE knows. A test that needs one of them fails instead
# of skipping when CLINIC_REQUIRE names it (or "all").
REQUIREMENTS = {
    "gpu": "a usable CUDA GPU",
    "no-hmm": "a GPU that faults on a host pointer (chapters 04 and 17 "
    "skip where "
    "the GPU can read pageable host memory: HMM or ATS)",
    "sanitizer": "compute-sanitizer",
    "pycuda": "Python with PyCUDA and numpy",
    "cupy": "Python with CuPy, for the CuPy twins",
    "torch": "Python with PyTorch, for the PyTorch twins",
    "numba": "Python with Numba's CUDA target, for the Numba twins",
    "multigpu": "two usable GPUs (chapters marked MULTIGPU)",
    "docs": "Doxygen, for the docs site",
    "browser": "a headless browser, for the site check",
    "bench-results": "the copy lab's recorded results (bench/results)",
    "flake8": "flake8, for the Python lint (python.lint)",
}
# A program's skip whose reason names its cause, other than a missing or
# unusable GPU: judged by that requirement word alone (so CLINIC_REQUIRE=gpu on
# a host with one GPU, or without CuPy, still goes green).
REASON_CAUSES = (
    (re.compile(r"GPU can read pageable memory \(HMM or ATS\)"), "no-hmm"),
    (re.compile(r"^this test needs [0-9]+ GPUs, the host has [0-9]+"),
     "multigpu"),  # require_gpus_or_skip() in check_cuda.h
    (re.compile(r"^PyCUDA and numpy are not installed for "), "pycuda"),
    (re.compile(r"^CuPy (is not installed for|cannot be imported)"), "cupy"),
    (re.compile(r"^PyTorch (is not installed for|cannot be imported)"),
     "torch"),
    (re.compile(r"^Numba (is not installed for|cannot be imported)"),
     "numba"),
)
# The Python libraries of the twins: the word a twin without Python skips for.
TWIN_LIBRARIES = ("pycuda", "cupy", "torch", "numba")
# Set by the update-expected preset; any other non-empty value is a mistake.
UPDATE_TOKEN = "record from real runs (ctest --preset update-expected)"
# Under a tool, and in the golden tests given --one-queue (every chapter's
# but the STREAMS ones, cmake/clinic.cmake), each CUDA context opens one
# hardware work queue instead of eight. The driver builds every queue under a
# lock that all processes on the GPU share (about 16 ms a queue on an H200),
# so with many tests at once the queues, not the checks, set the suite's
# pace. The tools check each access, barrier and allocation, and work on one
# stream runs in order, whatever the number of queues.
ONE_QUEUE = {"CUDA_DEVICE_MAX_CONNECTIONS": "1"}


class Fail(Exception):
    """The test fails with this message."""


class Skip(Exception):
    """The test skips (exit 77) with this reason."""


def required():
    """The requirement words CLINIC_REQUIRE names: case and blanks ignored,
    an unknown word an error that names the known ones."""
    words = [
        w.strip().lower()
        for w in os.environ.get("CLINIC_REQUIRE", "").split(",")
    ]
    words = [w for w in words if w]
    known = sorted(REQUIREMENTS) + ["all"]
    unknown = [w for w in words if w not in known]
    if unknown:
        raise Fail(
            "CLINIC_REQUIRE=%r: unknown %s; the known words are %s "
            "(comma-separated)"
            % (
                os.environ["CLINIC_REQUIRE"],
                ", ".join(repr(w) for w in unknown),
                ", ".join(known),
            )
        )
    return set(words)


def gpu_evidence():
    """What says a GPU is here even though CUDA could not use it, or ''."""
    forced = os.environ.get(
        "CLINIC_SELFTEST_GPU_EVIDENCE"
    )  # the self-test's stand-in
    if forced is not None:
        return "a GPU (self-test)" if forced == "1" else ""
    if os.path.exists("/dev/nvidia0"):
        return "/dev/nvidia0 exists"
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run(
                [smi, "-L"], capture_output=True, text=True, timeout=30
            ).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        if re.search(r"^GPU \d+:", out, re.M):
            return "nvidia-smi lists a GPU"
    return ""


def skip(cause, needs, why):
    """The test cannot run here because <cause> is missing. It fails when
    CLINIC_REQUIRE names <cause> or any of the test's <needs> (or "all"), or
    when a GPU is evidently present but unusable; otherwise it skips. A
    program's skip whose reason names another cause (REASON_CAUSES: HMM/ATS,
    too few GPUs, a missing library) is judged by that word alone."""
    if cause == "gpu":
        for reason, word in REASON_CAUSES:
            if reason.search(why):
                cause, needs = word, []
                break
    if cause == "gpu":
        evidence = gpu_evidence()
        if evidence:
            raise Fail(
                "%s, but CUDA cannot use the GPU: %s. Fix the driver or the "
                "container's device access; the GPU tests do not skip here."
                % (evidence, why)
            )
    words = required()
    judged = {cause} | set(needs)
    named = sorted(judged & words) or (sorted(judged) if "all" in words else [])
    if named:
        raise Fail(
            "[REQUIRED] CLINIC_REQUIRE=%s requires %s, "
            "but this test would skip: %s"
            % (os.environ.get("CLINIC_REQUIRE"), ", ".join(named), why)
        )
    raise Skip(why)


def run(command, timeout=None, extra_env=None):
    """Runs a command in a clean environment (runs.run: without the SCRUBBED
    switches, in a process group of its own), plus <extra_env>; returns
    (stdout, stderr, status text). The status is the exit code, or the
    signal's name."""
    result = runs.run(command, timeout, extra_env)
    if result["timed_out"]:
        return result["out"], result["err"], "timed out after %s s" % timeout
    return result["out"], result["err"], result["status"]


def program_skip(out, err, status):
    """The one skip predicate: the program took its no-GPU path when it exited
    77, printed exactly one line "[SKIPPED] <why>" and nothing on stderr."""
    m = re.fullmatch(r"\[SKIPPED\] ([^\n]+)\n", out)
    if status == str(SKIP_EXIT) and m and err == "":
        return m.group(1)
    return None


def update_mode(record):
    """True when <record> is to be written rather than compared: only under
    the update-expected preset, never on CI, never into a read-only checkout."""
    value = os.environ.get("CLINIC_UPDATE_EXPECTED", "")
    if value in ("", "0"):
        return False
    if value != UPDATE_TOKEN:
        raise Fail(
            "CLINIC_UPDATE_EXPECTED=%r: records are made only by "
            "`ctest --preset update-expected`; unset it to compare" % value
        )
    if "CI" in os.environ:
        raise Fail(
            "update mode with CI set: expected outputs are recorded on a "
            "GPU host, never on CI"
        )
    folder = os.path.dirname(os.path.abspath(record))
    chapter = os.path.dirname(folder)
    if not os.path.isdir(folder) and os.access(chapter, os.W_OK):
        os.makedirs(folder, exist_ok=True)  # a new chapter's first record
    if (
        not os.path.isdir(folder)
        or not os.access(folder, os.W_OK)
        or not os.stat(folder).st_mode & 0o222
    ):
        raise Fail(
            "update mode, but %s is not writable: nothing is recorded from here"
            % folder
        )
    return True


def write(path, text):
    with open(path, "w", newline="\n") as f:
        f.write(text)


def read(path):
    with open(path, newline="") as f:
        return f.read()


def compare(expected, actual):
    """Records <actual> in update mode, else fails unless it equals
    the record."""
    if update_mode(expected):
        write(expected, actual)
        print("recorded %s:\n%s" % (expected, actual), end="")
        return
    if not os.path.exists(expected):
        raise Fail(
            "no recorded output %s: record it on a GPU host with "
            "`ctest --preset "
            "update-expected` (see CONTRIBUTING.md). This run gave:\n%s"
            % (expected, actual)
        )
    want = read(expected)
    if actual == want:
        print("matches %s:\n%s" % (expected, actual), end="")
        return
    import difflib

    diff = difflib.unified_diff(
        want.splitlines(True), actual.splitlines(True), expected, "actual"
    )
    raise Fail("".join(diff) + "the output differs from %s" % expected)


def cmd_golden(a):
    if a.interpreter is not None and not a.interpreter:  # no Python
        library = [w for w in a.requires if w in TWIN_LIBRARIES]
        skip((library or ["pycuda"])[0], a.requires, a.why)
    command = ([a.interpreter] if a.interpreter else []) + [a.program]
    out, err, status = run(command, extra_env=ONE_QUEUE if a.one_queue
                           else None)
    why = program_skip(out, err, status)
    if why:
        skip("gpu", a.requires, why)
    compare(a.expected, transcript(out, err, status))


def patterns(path):
    """The regexes of an expectation file, one a line (blank lines
    ignored)."""
    return [p for p in read(path).splitlines() if p.strip()]


def mask(report, program):
    """The report as recorded for the READMEs, the same on every run and
    machine: addresses (hexadecimal numbers, and the huge distances between
    them), thread and block indices and absolute paths masked, and then each
    repeated error report (of another thread) left out."""
    report = report.replace(program, os.path.basename(program))
    report = re.sub(r"0x[0-9a-fA-F]+", "0x...", report)
    report = re.sub(r"\b\d{1,3}(?:,\d{3}){4,}\b", "...", report)
    report = re.sub(r"(thread|block) \(\d+,\d+,\d+\)", r"\1 (...)", report)
    report = re.sub(
        r"(?<![\w.])/(?:[^\s/:()'\"]+/)+([^\s/:()'\"]+)", r"\1", report
    )
    kept, seen, block = [], set(), []
    for line in report.splitlines(True) + ["========= (end)"]:
        if re.match(r"=+ \S", line):  # an unindented line starts a report
            text = "".join(block)
            if text not in seen:
                seen.add(text)
                kept.append(text)
            block = []
        block.append(line)
    return "".join(kept)


def cmd_sanitizer(a):
    needs = a.requires
    if not a.sanitizer:
        skip(
            "sanitizer",
            needs,
            "compute-sanitizer was not found next to nvcc or on the PATH",
        )
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "report.txt")
        args = sanitizer_args(a.tool, log)
        out, err, status = run([a.sanitizer] + args + [a.program],
                               timeout=300, extra_env=ONE_QUEUE)
        report = read(log) if os.path.exists(log) else ""
    print(
        "compute-sanitizer %s %s\n%s[program's output]\n%s"
        % (" ".join(args), a.program, report, transcript(out, err, status)),
        end="",
    )
    why = program_skip(out, err, status)
    if why:
        skip("gpu", needs, why)
    if a.expect_file:
        if a.report_record and update_mode(a.report_record):
            write(a.report_record, mask(report, a.program))
            print("recorded %s" % a.report_record)
        at = 0
        for pattern in patterns(a.expect_file):
            m = re.compile(pattern, re.S).search(report, at)
            if not m:
                raise Fail(
                    "%s did not report '%s' (%s)"
                    % (a.tool, pattern, a.expect_file)
                )
            at = m.end()
        # racecheck counts most hazards as warnings, which leave the exit
        # status alone: for it, a hazard in its summary counts as found.
        hazards = a.tool == "racecheck" and re.search(
            r"RACECHECK SUMMARY: [1-9][0-9]* hazards? displayed", report
        )
        if status != str(SANITIZER_ERRORS) and not hazards:
            raise Fail(
                "%s exit status %s: expected %d (errors found)"
                % (a.tool, status, SANITIZER_ERRORS)
            )
        print("%s reported what %s expects" % (a.tool, a.expect_file))
        return
    clean = (
        r"RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\)"
        if a.tool == "racecheck"
        else r"ERROR SUMMARY: 0 errors"
    )
    if not re.search(clean, report):
        raise Fail("%s did not report a clean run (no '%s')" % (a.tool, clean))
    m = re.search(r"\[exit status: ([^]]*)\]\n$", read(a.recorded))
    if not m:
        raise Fail("%s has no [exit status: N] line" % a.recorded)
    if status != m.group(1):
        raise Fail(
            "%s: exit status %s, expected %s as recorded"
            % (a.tool, status, m.group(1))
        )
    print("%s: clean" % a.tool)


def diagnostics(log):
    """The compiler's diagnostic lines of a build log,
    "<file>.cu(<line>): error|warning ...", with the file's folders removed;
    any other line (a command echoed) is ignored.
    """
    found = []
    for line in log.splitlines():
        m = re.match(
            r"^(?:.*[/\\])?([^/\\]*\.cu\([0-9]+\): (?:error|warning).*)$", line
        )
        if m:
            found.append(m.group(1))
    return found


def require_patterns(lines, pats, what):
    for pattern in pats:
        if not any(re.search(pattern, line) for line in lines):
            raise Fail(
                "%s: no diagnostic matches '%s':\n%s"
                % (what, pattern, "\n".join(lines))
            )


def cmd_compile_fail(a):
    pats = patterns(a.patterns_file)
    if not pats:
        raise Fail("%s holds no pattern" % a.patterns_file)
    p = subprocess.run(
        [a.cmake, "--build", a.build_dir, "--target", a.target],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    if p.returncode == 0:
        raise Fail("%s compiled, but it must not:\n%s" % (a.target, p.stdout))
    got = diagnostics(p.stdout)
    if not got:
        raise Fail(
            "%s failed to build, but without a compiler diagnostic:\n%s"
            % (a.target, p.stdout)
        )
    require_patterns(got, pats, a.target)
    print("%s failed to compile as it must:\n%s" % (a.target, "\n".join(got)))
    if update_mode(a.expected):
        write(
            a.expected,
            "".join(line + "\n" for line in got) + "[compilation failed]\n",
        )
        print("recorded %s" % a.expected)
    elif os.path.exists(a.expected):
        require_patterns(
            read(a.expected).splitlines(),
            pats,
            "%s (the diagnostics the docs show)" % a.expected,
        )
    else:
        raise Fail(
            "no recorded diagnostics %s: record them with "
            "`ctest --preset update-expected`" % a.expected
        )


def cmd_probe(a):
    out, err, status = run([a.program] + a.arg)
    why = program_skip(out, err, status)
    if why:
        skip("gpu", a.requires, why)
    if status != "0":
        raise Fail("the GPU probe failed:\n" + transcript(out, err, status))
    print(out, end="")


def cmd_unavailable(a):
    skip(a.requires, [], a.why)


def cmd_require(a):
    print(
        "CLINIC_REQUIRE names: %s"
        % (", ".join(sorted(required())) or "nothing")
    )


def tour_judge(program, record, timeout):
    """(verdict, skip reason or None) for one program against its record."""
    out, err, status = run([program], timeout=timeout)
    why = program_skip(out, err, status)
    if why:
        return "skipped", why
    if not os.path.exists(record):
        return (
            "NO: %s not recorded yet, [exit status: %s]" % (record, status),
            None,
        )
    if transcript(out, err, status) == read(record):
        return "yes, [exit status: %s]" % status, None
    return (
        "NO: differs from its recorded output, [exit status: %s]" % status,
        None,
    )


def cmd_tour(a):
    """Each line of the chapters file: name, broken exe ("" when broken.cu must
    not compile), fixed exe, chapter folder; tab-separated."""
    failed = 0
    print(
        "%-34s%-40s%s"
        % ("chapter", "broken symptom seen", "fixed matches its record")
    )
    for line in read(a.chapters).splitlines():
        if not line.strip():
            continue
        name, broken, fixed, folder = line.split("\t")
        rows = []
        reasons = []
        for exe, record in ((broken, "broken.out"), (fixed, "fixed.out")):
            if not exe:
                rows.append("compile error (ctest -L compile_fail)")
                continue
            verdict, why = tour_judge(
                exe, os.path.join(folder, "expected", record), a.timeout
            )
            rows.append(verdict)
            if why:
                reasons.append(why)
        note = ""
        if reasons:
            try:
                skip("gpu", ["gpu"], reasons[0])
            except Skip:
                note = "  (skipped: %s)" % reasons[0]
            except Fail as e:
                note = "  (NOT ALLOWED: %s)" % e
                failed += 1
        if any(r.startswith("NO") for r in rows):
            failed += 1
        print("%-34s%-40s%s%s" % (name, rows[0], rows[1], note))
    if failed:
        raise Fail("tour: %d chapter(s) not as documented" % failed)
    print("tour: every chapter as documented, or skipped for the reason shown")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("golden")
    g.add_argument("--program", required=True)
    g.add_argument("--interpreter")
    g.add_argument("--why", default="")
    g.add_argument("--expected", required=True)
    g.add_argument("--requires", default="gpu")
    g.add_argument("--one-queue", action="store_true")
    s = sub.add_parser("sanitizer")
    s.add_argument("--sanitizer", default="")
    s.add_argument("--tool", required=True)
    s.add_argument("--program", required=True)
    s.add_argument("--expect-file", default="")
    s.add_argument("--recorded", required=True)
    s.add_argument("--report-record", default="")
    s.add_argument("--requires", default="gpu,sanitizer")
    c = sub.add_parser("compile-fail")
    for arg in (
        "--cmake",
        "--build-dir",
        "--target",
        "--patterns-file",
        "--expected",
    ):
        c.add_argument(arg, required=True)
    pr = sub.add_parser("probe")
    pr.add_argument("--program", required=True)
    pr.add_argument("--arg", action="append", default=[])
    pr.add_argument("--requires", default="gpu")
    u = sub.add_parser("unavailable")
    u.add_argument("--requires", required=True)
    u.add_argument("--why", required=True)
    sub.add_parser("require")
    t = sub.add_parser("tour")
    t.add_argument("--chapters", required=True)
    t.add_argument("--timeout", type=float, default=120)
    a = p.parse_args()
    if hasattr(a, "requires") and a.command != "unavailable":
        a.requires = [w for w in a.requires.split(",") if w]
    return verdict(lambda: globals()["cmd_" + a.command.replace("-", "_")](a))


def verdict(body):
    """Runs a driver's body and returns its exit status: 0 when it passed,
    SKIP_EXIT with the `[SKIPPED] <why>` line when it raised Skip, 1 with the
    message on stderr when it raised Fail. A mistyped CLINIC_REQUIRE fails
    before the body runs. Shared with bench/check_csv.py."""
    try:
        required()
        body()
    except Skip as e:
        print("[SKIPPED] %s" % e)
        sys.stdout.flush()
        return SKIP_EXIT
    except Fail as e:
        sys.stdout.flush()
        print(str(e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
