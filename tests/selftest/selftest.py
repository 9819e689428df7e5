#!/usr/bin/env python3
"""The harness self-test: every layer of the harness must be able to fail.

    --part drivers       configures the fake-program project (CMakeLists.txt
                         here), runs CTest on it and checks that CTest reports
                         each test as its name says: pass.* Passed,
                         fail.* Failed, skip.* Skipped; with --tests, only
                         the fake tests named, judged by their verdicts alone
                         (mutants.py names the ones that catch its mutant)
    --part registration  configures fake chapters with cmake/clinic.cmake and
                         checks the tests clinic_chapter() registers, and
                         (when those are right) that it rejects an unknown
                         argument
    --part lab           runs bench/check_csv.py on good and planted-bad CSVs

The harness tested is the one this file sits in (mutants.py runs a planted
copy). Exit status: 0 as it should, 1 not, 2 a fake test named with --tests
does not exist.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
)
CLEAN_ENV = {
    k: v
    for k, v in os.environ.items()
    if k not in ("CLINIC_REQUIRE", "CLINIC_UPDATE_EXPECTED", "CI")
}
CLEAN_ENV["CLINIC_SELFTEST_GPU_EVIDENCE"] = (
    "0"  # this machine's GPU, if any, is not the fakes'
)
# CTest's jobs for the fake tests, which take a tenth of a second each, most
# of it Python's start: on two cores -j 8 took twice the time of -j 2 (and
# the harness preset runs several self-tests at once).
JOBS = "2"


def sh(command, **kw):
    return subprocess.run(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=CLEAN_ENV,
        **kw
    )


def configure(src, work, args, seed_from):
    """Configures <src> in the fresh folder <work>, with what CMake found
    out in the build folder <seed_from> (see seed())."""
    gen = ["-G", args.generator] if args.generator else []
    # This interpreter, so that FindPython need not ask a launcher (pyenv's
    # shim, a shell script) which one it starts.
    python = ["-DPython3_EXECUTABLE=" + sys.executable]
    return sh(
        ["cmake", "-S", src, "-B", work] + gen + python + args.extra
        + seed(work, seed_from)
    )


def seed(build, source):
    """The configure options that let the fresh build folder <build> reuse
    what CMake found out in <source>, a build folder of the same tools (this
    project's build, or the first fake tree's), instead of asking the tools
    again: the C and CUDA compilers (detecting nvcc costs about 10 s of CPU)
    and this Python's properties (FindPython runs it 7 times for them, about
    1 s of CPU). [] when <source> is ""."""
    if not source:
        return []
    options = []
    # CMakeFiles/<CMake version>/CMake*.cmake, which CMake trusts once the
    # cache says that it made that folder itself.
    for system in glob.glob(
        os.path.join(source, "CMakeFiles", "*", "CMakeSystem.cmake")
    ):
        found = os.path.dirname(system)
        into = os.path.join(build, "CMakeFiles", os.path.basename(found))
        os.makedirs(into)
        for f in glob.glob(os.path.join(found, "CMake*.cmake")):
            shutil.copy(f, into)
        options = ["-DCMAKE_PLATFORM_INFO_INITIALIZED=1"]
    # What FindPython keeps in the cache about the interpreter it found.
    cache = {}
    if os.path.isfile(os.path.join(source, "CMakeCache.txt")):
        with open(os.path.join(source, "CMakeCache.txt")) as f:
            for line in f:
                m = re.match(r"(_Python3_[A-Z_]+):INTERNAL=(.*)$", line)
                if m:
                    cache[m.group(1)] = m.group(2)
    if (
        cache.get("_Python3_EXECUTABLE") == sys.executable
        and "_Python3_INTERPRETER_PROPERTIES" in cache
    ):
        options += [
            "-D%s:INTERNAL=%s" % (name, cache[name])
            for name in ("_Python3_EXECUTABLE",
                         "_Python3_INTERPRETER_PROPERTIES")
        ]
    return options


def part_drivers(args, wrong):
    p = configure(
        os.path.join(ROOT, "tests", "selftest"), args.work, args, args.seed
    )
    if p.returncode:
        return wrong.append(
            "could not configure the self-test project:\n" + p.stdout
        )
    junit = os.path.join(args.work, "junit.xml")
    named = []
    if args.tests:
        named = ["-R", "^(%s)$" % "|".join(
            re.escape(name) for name in args.tests)]
    log = sh(
        ["ctest", "--test-dir", args.work, "-j", JOBS, "--output-junit", junit]
        + named
    ).stdout
    count = 0
    ran = set()
    for case in ET.parse(junit).getroot().iter("testcase"):
        name, status = case.get("name"), case.get("status")
        want = name.split(".")[0]
        got = {"run": "pass", "fail": "fail", "notrun": "skip"}.get(
            status, status
        )
        if got != want:
            wrong.append(
                "%s: CTest says %s (%s), it must be %s"
                % (name, got, status, want)
            )
        # The hung program sleeps 12 s, the tour stops it after 2 s: a tour
        # that waits for it takes 12 s or more, whatever the machine's load.
        if name == "fail.tour.hangs" and float(case.get("time")) > 11:
            wrong.append(
                "fail.tour.hangs: took %s s; "
                "the tour did not stop the hung program" % case.get("time")
            )
        ran.add(name)
        count += 1
    if args.tests:  # the checks below need the whole run
        missing = sorted(set(args.tests) - ran)
        if missing:
            print("no fake test named %s:\n%s" % (", ".join(missing), log))
            sys.exit(2)
        if wrong:
            wrong.append("CTest's log:\n" + log)
        return
    if count < 90:
        wrong.append(
            "the self-test project ran only %d tests:\n%s" % (count, log)
        )
    fakes = os.path.join(args.work, "fakes")

    def text(name):
        with open(os.path.join(fakes, name)) as f:
            return f.read()

    if (
        text("recorded.out")
        != "squares: 1 of 4 elements wrong\n[exit status: 1]\n"
    ):
        wrong.append(
            "pass.golden.update_mode_records recorded %r" % text("recorded.out")
        )
    for name in (
        "update_1.out",
        "update_yes.out",
        "update_true.out",
        "update_ON.out",
        "ci.out",
        "ci_empty.out",
        "read-only/ro.out",
        "ok.out",
    ):
        if text(name) != "squares: 0 of 4 elements wrong\n[exit status: 0]\n":
            wrong.append("%s was overwritten outside update mode" % name)
    report = text("pass.sanitizer.report_recorded.report")
    if (
        "0x..." not in report
        or re.search(r"0x[0-9a-f]|/|\([0-9]", report)
        or report.count("Invalid __global__ write") != 1
    ):
        wrong.append("the recorded sanitizer report is not masked:\n" + report)
    for name in os.listdir(fakes):
        if (
            name.endswith(".report")
            and name != "pass.sanitizer.report_recorded.report"
        ):
            wrong.append(
                "%s: a sanitizer report recorded outside update mode" % name
            )
    if wrong:
        wrong.append("CTest's log:\n" + log)


FAKE_CHAPTERS = {
    # folder: (clinic_chapter arguments, files)
    "01-fake-one": (
        "SERIAL SOURCES shared.cu shared.cuh",  # built into each: no tests
        {
            "shared.cu": "",
            "shared.cuh": "",
            "broken.py": "",
            "fixed.py": "",
            "broken_cupy.py": "",
            "fixed_cupy.py": "",
            "expected/broken.memcheck": "Invalid __global__ write\n",
            "expected/broken.initcheck": "Uninitialized\n",
            "expected/fixed.memcheck": "ERROR SUMMARY: 1 error\n",
        },
    ),
    "02-fake-two": (
        "FAULTS",
        {
            "fixed.py": "",
            "expected/broken.compile-errors": "error: one\nerror: two\n",
            "expected/fixed.out": "[stderr]\nan illegal memory access\n"
            "[exit status: 2]\n",
        },
    ),
    "03-fake-three": (
        "MULTIGPU FAULTS STREAMS VARIANTS second_form",
        {
            "second_form.cu": "",
            "fixed_cupy.py": "",
            "broken_torch.py": "",
            "fixed_numba.py": "",
            "expected/broken.racecheck": "Race reported\n",
            "expected/broken.out": "1 wrong\n[exit status: 1]\n",
            "expected/fixed.out": "ok\n[exit status: 0]\n",
        },
    ),
}
TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")
WANT_TESTS = {
    "ch01.broken.golden",
    "ch01.fixed.golden",
    "ch01.broken.py.golden",
    "ch01.fixed.py.golden",
    "ch01.broken.memcheck",
    "ch01.broken.initcheck",
    "ch02.broken.compile_fails",
    "ch02.fixed.golden",
    "ch02.fixed.py.golden",
    "ch01.broken_cupy.py.golden",
    "ch01.fixed_cupy.py.golden",
    "ch03.broken.golden",
    "ch03.fixed.golden",
    "ch03.fixed_cupy.py.golden",
    "ch03.broken_torch.py.golden",
    "ch03.fixed_numba.py.golden",
    "ch03.broken.racecheck",
    "ch03.second_form.golden",
} | {"ch0%d.fixed.%s" % (n, t) for n in (1, 2, 3) for t in TOOLS}
# The labels and requirement words each kind of test must have (the chapter's
# own label, chNN, too); a MULTIGPU chapter's add multigpu.
LABELS = {
    ".golden": ({"gpu", "golden"}, "gpu"),
    ".py.golden": ({"pycuda", "golden"}, "gpu,pycuda"),
    "_cupy.py.golden": ({"cupy", "golden"}, "gpu,cupy"),
    "_torch.py.golden": ({"torch", "golden"}, "gpu,torch"),
    "_numba.py.golden": ({"numba", "golden"}, "gpu,numba"),
    "sanitizer": ({"sanitizer"}, "gpu,sanitizer"),
}


def fake_tree(top, chapters):
    os.makedirs(top, exist_ok=True)
    lines = [
        "cmake_minimum_required(VERSION 3.25)",
        'include("%s/cmake/clinic.cmake")' % ROOT,
        "project(registration LANGUAGES C CUDA)",
    ]
    for folder, (flags, files) in chapters.items():
        d = os.path.join(top, "chapters", folder)
        for name, content in dict(
            files,
            **{
                "broken.cu": "",
                "fixed.cu": "",
                "CMakeLists.txt": "clinic_chapter(%s)\n" % flags,
            }
        ).items():
            os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
            with open(os.path.join(d, name), "w") as f:
                f.write(content)
        lines.append("add_subdirectory(chapters/%s)" % folder)
    lines.append(
        "clinic_tour(%s)" % " ".join("chapters/" + c for c in chapters)
    )
    with open(os.path.join(top, "CMakeLists.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def part_registration(args, wrong):
    src = os.path.join(args.work, "src")
    fake_tree(src, FAKE_CHAPTERS)
    build = os.path.join(args.work, "build")
    p = configure(src, build, args, args.seed)
    if p.returncode:
        return wrong.append(
            "could not configure the fake chapters:\n" + p.stdout
        )
    listing = sh(
        [
            "ctest",
            "--test-dir",
            os.path.join(args.work, "build"),
            "--show-only=json-v1",
        ]
    )
    tests = {t["name"]: t for t in json.loads(listing.stdout)["tests"]}
    if set(tests) != WANT_TESTS:
        wrong.append(
            "registered tests: missing %s, unexpected %s"
            % (sorted(WANT_TESTS - set(tests)), sorted(set(tests) - WANT_TESTS))
        )

    def arg(name, key):
        for a in tests.get(name, {}).get("command", []):
            if a.startswith("--%s=" % key):
                return a.split("=", 1)[1]
        return None

    def prop(name, key):
        for p in tests.get(name, {}).get("properties", []):
            if p["name"] == key:
                return p["value"]
        return None

    exp = os.path.join(src, "chapters", "%s", "expected", "%s")
    checks = [
        (
            "ch01.broken.memcheck",
            "expect-file",
            exp % ("01-fake-one", "broken.memcheck"),
        ),
        (
            "ch01.broken.memcheck",
            "report-record",
            exp % ("01-fake-one", "broken.memcheck.out"),
        ),
        (
            "ch01.broken.initcheck",
            "expect-file",
            exp % ("01-fake-one", "broken.initcheck"),
        ),
        (
            "ch01.fixed.memcheck",
            "expect-file",
            exp % ("01-fake-one", "fixed.memcheck"),
        ),
        ("ch01.fixed.racecheck", "expect-file", ""),
        (
            "ch02.broken.compile_fails",
            "patterns-file",
            exp % ("02-fake-two", "broken.compile-errors"),
        ),
        ("ch01.broken.golden", "expected", exp % ("01-fake-one", "broken.out")),
        (
            "ch01.fixed.py.golden",
            "expected",
            exp % ("01-fake-one", "fixed.py.out"),
        ),
    ]
    checks += [
        ("ch0%d.fixed.%s" % (n, t), "tool", t) for n in (1, 2) for t in TOOLS
    ]
    checks += [
        ("ch01.broken.%s" % t, "tool", t) for t in ("memcheck", "initcheck")
    ]
    for name, key, want in checks:
        if name in tests and arg(name, key) != want:
            wrong.append(
                "%s: --%s=%r, not %r" % (name, key, arg(name, key), want)
            )
    for twin in ("ch01.broken.py.golden", "ch01.fixed_cupy.py.golden"):
        if arg(twin, "interpreter") is None:
            wrong.append("%s: not run with the Python interpreter" % twin)
    for twin, word in (
        ("ch01.fixed.py.golden", "PyCUDA"),
        ("ch01.broken_cupy.py.golden", "CuPy"),
        ("ch03.broken_torch.py.golden", "PyTorch"),
        ("ch03.fixed_numba.py.golden", "Numba"),
    ):
        why = arg(twin, "why") or ""
        if why and not why.startswith((word, "no Python")):
            wrong.append("%s: --why=%r is not about %s" % (twin, why, word))
    check_labels(tests, arg, prop, wrong)
    if prop("ch01.broken.golden", "RUN_SERIAL") is not True:
        wrong.append(
            "ch01 is SERIAL, but its golden test does not run serially"
        )
    # STREAMS (ch03) keeps the driver's work queues for the golden tests;
    # elsewhere they run with one, as the sanitizer tests do.
    for name, queues in [("ch01.broken.golden", True),
                         ("ch01.fixed.py.golden", True),
                         ("ch03.fixed.golden", False),
                         ("ch03.fixed_cupy.py.golden", False)]:
        command = tests.get(name, {}).get("command", [])
        if name in tests and ("--one-queue" in command) != queues:
            wrong.append("%s: %s --one-queue" % (
                name, "lacks" if queues else "passes"))
    if "gpu_fault" not in (prop("ch02.fixed.golden", "RESOURCE_LOCK") or []):
        wrong.append("ch02 FAULTS, but its golden test does not lock gpu_fault")
    # FAULTS: every test but memcheck's of a program that may fault (its
    # record names a fault, or there is none) locks gpu_fault; no other does.
    for name, locks in [
        ("ch02.fixed.%s" % t, t != "memcheck") for t in TOOLS
    ] + [
        ("ch02.fixed.py.golden", True),
        ("ch03.broken.golden", False),
        ("ch03.broken.racecheck", False),
        ("ch03.second_form.golden", True),
        ("ch03.fixed_cupy.py.golden", True),
        ("ch03.fixed.golden", False),
        ("ch03.fixed.memcheck", False),
        ("ch03.fixed.synccheck", False),
        ("ch01.broken.golden", False),
        ("ch01.fixed.memcheck", False),
    ]:
        if ("gpu_fault" in (prop(name, "RESOURCE_LOCK") or [])) != locks:
            wrong.append("%s: %s the gpu_fault lock" % (
                name, "lacks" if locks else "takes"))
    if wrong:  # already wrong: no need to configure a bad chapter too
        return
    bad = os.path.join(args.work, "bad")
    fake_tree(bad, {"01-misspelt": ("BROKEN_SANITISER memcheck x", {})})
    p = configure(bad, os.path.join(args.work, "bad-build"), args, build)
    if p.returncode == 0 or "unknown arguments" not in p.stdout:
        wrong.append(
            "clinic_chapter(BROKEN_SANITISER ...) did not stop the configure:\n"
            + p.stdout
        )


def check_labels(tests, arg, prop, wrong):
    """Each test's labels and --requires, by its kind (LABELS)."""
    for name in sorted(WANT_TESTS & set(tests)):
        kind = next(
            (k for k in ("_cupy.py.golden", "_torch.py.golden",
                         "_numba.py.golden", ".py.golden", ".golden")
             if name.endswith(k)),
            "sanitizer",
        )
        if name.endswith("compile_fails"):
            continue
        labels, requires = LABELS[kind]
        labels = labels | {name[:4]}
        if name.startswith("ch03."):
            labels = labels | {"multigpu"}
            if requires:
                requires = requires.replace("gpu", "gpu,multigpu", 1)
        got = set(prop(name, "LABELS") or [])
        if not labels <= got or (
            "multigpu" in got and not name.startswith("ch03.")
        ) or ({"cupy", "pycuda", "torch", "numba"} - labels) & got:
            wrong.append("%s: labels %s, want %s" % (
                name, sorted(got), sorted(labels)))
        if requires and arg(name, "requires") != requires:
            wrong.append("%s: --requires=%r, not %r" % (
                name, arg(name, "requires"), requires))


def part_lab(args, wrong):
    checker = os.path.join(ROOT, "bench", "check_csv.py")
    results = os.path.join(ROOT, "bench", "results")

    def case(name, edit, must_pass):
        d = os.path.join(args.work, name)
        shutil.copytree(results, d)
        if edit:
            edit(d)
        p = sh([sys.executable, checker, "--dir", d])
        if (p.returncode == 0) != must_pass:
            wrong.append(
                "lab %s: check_csv.py exited %d:\n%s"
                % (name, p.returncode, p.stdout)
            )

    def rewrite(d, name, fn):
        path = os.path.join(d, name)
        with open(path) as f:
            rows = f.read().splitlines()
        rows = [rows[0]] + [fn(r.split(",")) for r in rows[1:]]
        with open(path, "w") as f:
            f.write("\n".join(rows) + "\n")

    def set_col(name, col, value, when=lambda r: True):
        def fn(r):
            if when(r):
                r[col] = value(r) if callable(value) else value
            return ",".join(r)

        return lambda d: rewrite(d, name, fn)

    case("good", None, True)
    case(
        "bandwidth_data_wrong",
        set_col("bandwidth.csv", 10, "0", lambda r: r[0] == "D2H"),
        False,
    )
    case(
        "overlap_data_wrong",
        set_col("overlap.csv", 14, "0", lambda r: r[0] == "3"),
        False,
    )
    # pinned no faster than pageable: every pinned row as slow as 0.5 GB/s
    case(
        "pinned_not_faster",
        set_col("bandwidth.csv", 7, "0.500", lambda r: r[1] == "pinned"),
        False,
    )
    # no overlap: every stream count takes as long as one stream
    case(
        "no_overlap",
        set_col("overlap.csv", slice(4, 7), lambda r: [r[7]] * 3),
        False,
    )
    case(
        "semicolon",
        set_col("bandwidth.csv", 9, "0;1", lambda r: r[0] == "H2D"),
        False,
    )
    case(
        "quote",
        set_col("overlap.csv", 9, '"2.5"', lambda r: r[0] == "2"),
        False,
    )


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", required=True)
    p.add_argument(
        "--part", required=True, choices=("drivers", "registration", "lab")
    )
    p.add_argument("--generator", default="")
    p.add_argument("--cuda-compiler", default="")
    p.add_argument(
        "--seed", default="", metavar="BUILD",
        help="a build folder of this project: the fake projects reuse what "
        "CMake found out about the compilers and Python there (see seed())")
    p.add_argument(
        "--tests", nargs="+", metavar="NAME",
        help="--part drivers: only these fake tests, judged by their verdicts")
    args = p.parse_args()
    args.extra = (
        ["-DCMAKE_CUDA_COMPILER=" + args.cuda_compiler]
        if args.cuda_compiler
        else []
    )
    args.work = os.path.abspath(args.work)
    if os.path.isdir(args.work):
        for dirpath, dirnames, _ in os.walk(
            args.work
        ):  # the read-only fake folder
            for d in dirnames:
                os.chmod(os.path.join(dirpath, d), 0o755)
    shutil.rmtree(args.work, ignore_errors=True)
    wrong = []
    globals()["part_" + args.part](args, wrong)
    if wrong:
        print(
            "the harness does not judge as it should (%s):\n  %s"
            % (args.part, "\n  ".join(wrong))
        )
        return 1
    print("the harness's %s judge as they should%s" % (
        args.part, " (in %s)" % ", ".join(args.tests) if args.tests else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
