#!/usr/bin/env python3
"""The doctor on the chapters' own programs, on a GPU host (label doctor).

    doctor_gpu.py --build <build dir> [--out <dir>] [--jobs 8]
                  [--chapters 01,04,...] [--sanitizer <path>]

Runs tools/clinic-doctor on every chapter's runtime broken program (with
--wrong-result: the person knows the program is wrong) and on every fixed
program, several at a time, prints one row each with the time it took, and
asserts what issue 17 asks:
  * every broken program's chapter is named: among the doctor's chapters
    (findings first, then the silent causes), and among the first two for at
    least 90% of the programs;
  * every fixed program gives no finding, except the faults chapters 02 and
    10 make on purpose, which must be routed to their own chapter.
A program that skips itself (no HMM-free GPU, too little memory) is a row
that says so. Without a GPU or compute-sanitizer the test skips (exit 77),
unless CLINIC_REQUIRE forbids it (tests/drivers/clinic_driver.py).
"""

import argparse
import concurrent.futures
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "drivers"))
import clinic_driver  # noqa: E402

DOCTOR = ROOT / "tools" / "clinic-doctor"
ON_PURPOSE = {"02", "10"}  # fixed programs that fault on purpose
# Lines of a program's output that hold a timing verdict: they may differ
# between runs and under CUDA_LAUNCH_BLOCKING=1 (chapter 18 measures overlap).
IGNORE = {"18": r"^overlapped:"}


TWINS = ("broken.py", "fixed.py", "broken_cupy.py", "fixed_cupy.py",
         "broken_torch.py", "fixed_torch.py", "broken_numba.py",
         "fixed_numba.py")


def programs(build, only, twins=False):
    """(number, folder name, kind, command) for every built program, and
    with <twins> every Python twin (python3 script)."""
    found = []
    for chapter in sorted((ROOT / "chapters").iterdir()):
        m = re.match(r"^([0-9][0-9])-", chapter.name)
        if not m or (only and m.group(1) not in only):
            continue
        for kind in ("broken", "fixed"):
            exe = Path(build) / "chapters" / chapter.name / kind
            if exe.exists():
                found.append((m.group(1), chapter.name, kind, [str(exe)]))
        for twin in TWINS if twins else ():
            if (chapter / twin).exists():
                found.append((m.group(1), chapter.name, twin,
                              [sys.executable, str(chapter / twin)]))
    return found


def examine(number, name, kind, exe, args):
    command = [sys.executable, str(DOCTOR), "--json", "--tool-timeout",
               "150"]
    if not args.plain:  # --plain: as a user runs it, no hints given
        command += ["--source", str(ROOT / "chapters" / name)]
        if kind.startswith("broken"):
            command.append("--wrong-result")
    if number in IGNORE:
        command += ["--ignore", IGNORE[number]]
    if args.sanitizer:
        command += ["--sanitizer", args.sanitizer]
    library = Path(args.build) / "tools" / "trace" / "libclinic_trace.so"
    if library.exists():
        command += ["--trace-library", str(library)]
    # Eight examinations share the GPU here: the budget that one
    # examination alone keeps (60 s) would cut the tools short.
    command += ["--budget", "600"]
    if args.out:
        command += ["--keep", str(Path(args.out) / f"ch{number}-{kind}")]
    command += ["--"] + exe
    start = time.monotonic()
    p = subprocess.run(command, capture_output=True, text=True)
    seconds = time.monotonic() - start
    try:
        report = json.loads(p.stdout)
    except ValueError:
        report = {"exit": None, "crash": p.stdout[-2000:] + p.stderr[-2000:]}
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / f"ch{number}-{kind}.json").write_text(p.stdout)
    return number, kind, report, seconds


def chapter_list(report):
    """The chapters the doctor named, most likely first: the findings'
    chapters, then the silent causes."""
    named = list(report.get("suspects", []))
    for ref in report.get("silent_causes", []):
        if ref["number"] not in named:
            named.append(ref["number"])
    return named


def judge(number, kind, report):
    """(verdict word, detail): first / top2 / listed / MISSED / clean /
    DIRTY / skipped / CRASH."""
    if report.get("exit") is None:
        return "CRASH", report.get("crash", "")
    if report["exit"] == 2:
        why = "; ".join(report.get("cannot_examine", []))
        return "skipped", why
    named = chapter_list(report)
    top = report["findings"][0] if report.get("findings") else None
    head = (f"{top['source']}: {top['summary']}" if top
            else "no tool finding")
    if kind.startswith("broken"):
        if named[:1] == [number]:
            return "first", f"{head} -> {','.join(named[:3])}"
        if number in named[:2]:
            return "top2", f"{head} -> {','.join(named[:3])}"
        if number in named:
            return "listed", f"{head} -> {','.join(named[:6])}"
        return "MISSED", f"{head} -> {','.join(named[:6])}"
    if report["exit"] == 0:
        return "clean", "no finding"
    if number in ON_PURPOSE and report.get("findings") and all(
        f["chapters"] and f["chapters"][0]["number"] == number
        for f in report["findings"]
    ):
        return "clean", f"on purpose: {head} -> {number}"
    return "DIRTY", f"{head} -> {','.join(named[:3])}"


def environment_skip(reports):
    """A skip reason when the doctor could examine nothing here."""
    reasons = [" ".join(r.get("cannot_examine", [])) for r in reports]
    if reasons and all(reasons):
        text = reasons[0]
        cause = "sanitizer" if "compute-sanitizer" in text else "gpu"
        return cause, text
    return None


def summary(rows):
    """Prints the counts and times; returns the failures they make."""
    failures = []
    broken = [r for r in rows if r[1].startswith("broken")
              and r[2] != "skipped"]
    first = [r for r in broken if r[2] == "first"]
    top2 = [r for r in broken if r[2] in ("first", "top2")]
    fixed_clean = [r for r in rows if r[1].startswith("fixed")
                   and r[2] == "clean"]
    fixed_all = [r for r in rows if r[1].startswith("fixed")
                 and r[2] != "skipped"]
    print(f"\nbroken programs examined: {len(broken)}; chapter first: "
          f"{len(first)}; among the first two: {len(top2)}; listed further "
          "down: "
          f"{sum(1 for r in broken if r[2] == 'listed')}; missed: "
          f"{sum(1 for r in broken if r[2] == 'MISSED')}")
    print(f"fixed programs examined: {len(fixed_all)}; no finding (or only "
          f"the on-purpose fault): {len(fixed_clean)}")
    times = sorted(r[3] for r in rows)
    if times:
        print(f"time per program: median {times[len(times) // 2]:.1f} s, "
              f"longest {times[-1]:.1f} s")
    if broken and len(top2) < 0.9 * len(broken):
        failures.append(("", "", "", 0, "fewer than 90% in the first two"))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--out")
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--chapters", default="")
    parser.add_argument("--sanitizer", default="")
    parser.add_argument("--plain", action="store_true",
                        help="run the doctor as a user would: no --source, "
                        "no --wrong-result (issue 24's measure)")
    parser.add_argument("--twins", action="store_true",
                        help="also the Python twins")
    args = parser.parse_args()
    only = {c.strip().zfill(2) for c in args.chapters.split(",") if c.strip()}
    todo = programs(args.build, only, args.twins)
    if not todo:
        print(f"no chapter programs built under {args.build}")
        return 1
    try:
        clinic_driver.required()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            done = list(pool.map(lambda t: examine(*t, args), todo))
        skip = environment_skip([r for _, _, r, _ in done])
        if skip:
            clinic_driver.skip(skip[0], ["gpu", "sanitizer"], skip[1])
    except clinic_driver.Skip as why:
        print(f"[SKIPPED] {why}")
        return clinic_driver.SKIP_EXIT
    except clinic_driver.Fail as failure:
        print(failure)
        return 1
    rows, counts = [], {}
    for number, kind, report, seconds in sorted(done, key=lambda d: d[:2]):
        verdict, detail = judge(number, kind, report)
        counts.setdefault((kind, verdict), 0)
        counts[(kind, verdict)] += 1
        rows.append((number, kind, verdict, seconds, detail))
        print(f"ch{number} {kind:14} {verdict:7} {seconds:6.1f} s  {detail}")
    failures = [r for r in rows if r[2] in ("MISSED", "DIRTY", "CRASH")]
    failures += summary(rows)
    if failures:
        print(f"\nFAILED: {len(failures)} program(s) not as issue 17 asks")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
