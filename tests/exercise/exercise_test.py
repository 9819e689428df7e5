#!/usr/bin/env python3
"""One exercise test: make a fresh exercise copy of a chapter, in a folder of
its own, and run `tools/clinic-exercise check` on it.

  exercise_test.py --chapter NN --mode unsolved|solved --work DIR
                   [--build-only] [-- <check options>]

unsolved: the copy of broken.cu and of the chapter's CMakeLists.txt, as
  `start` makes it, must fail the check,
  and the failure must show the chapter's hint. With --build-only it must
  build, except in a chapter whose broken program must not compile.
solved: the copy made from fixed.cu instead (and the CMakeLists.txt lines
  about fixed) must pass the check (with --build-only: must build).
The check exits 77 when it cannot judge here (no GPU, no compute-sanitizer);
then this test skips the way the harness's drivers do, with their skip()
(tests/drivers/clinic_driver.py): exit 77 (the test's SKIP_RETURN_CODE),
unless CLINIC_REQUIRE names what is missing, or a GPU is evidently there but
unusable: then it fails.
"""

import argparse
import importlib.machinery
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "clinic-exercise"


def load_tool():
    loader = importlib.machinery.SourceFileLoader("clinic_exercise", str(TOOL))
    spec = importlib.util.spec_from_loader("clinic_exercise", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def skip(why):
    """The harness's own skip decision (tests/drivers/clinic_driver.py): exit
    77, which the test's SKIP_RETURN_CODE reports as Skipped, unless
    CLINIC_REQUIRE names what is missing (then the test fails)."""
    sys.path.insert(0, str(ROOT / "tests" / "drivers"))
    import clinic_driver

    cause = "sanitizer" if "compute-sanitizer" in why else "gpu"
    try:
        clinic_driver.skip(cause, ["gpu", "sanitizer"], why)
    except clinic_driver.Skip:
        print(f"[SKIPPED] {why}")
        return clinic_driver.SKIP_EXIT
    except clinic_driver.Fail as failure:
        print(failure)
        return 1
    return 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chapter", required=True)
    parser.add_argument("--mode", choices=("unsolved", "solved"), required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("check_options", nargs="*")
    args = parser.parse_args()
    tool = load_tool()
    chapter = tool.find_chapter(args.chapter, ROOT)

    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    base = [sys.executable, str(TOOL), "--exercises", str(work)]
    subprocess.run(base + ["start", args.chapter], check=True)
    if args.mode == "solved":
        # fixed.cu, and the CMake lines about fixed, where the build is part
        # of the fix (chapter 28)
        tool.write_copy(chapter, work / chapter.name, "fixed")
    check = base + ["check", args.chapter] + args.check_options
    if args.build_only:
        check.append("--build-only")
    done = subprocess.run(
        check, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output = done.stdout
    print(output)
    print(f"[check exit status: {done.returncode}]")

    if done.returncode == tool.CANNOT_CHECK:
        reasons = [
            line.split(": ", 1)[1]
            for line in output.splitlines()
            if line.startswith("Cannot check here: ")
        ]
        return skip(reasons[0] if reasons else "the check cannot judge here")
    readme = chapter / "README.md"
    hint = tool.read_hint(readme.read_text()) if readme.exists() else ""
    if args.mode == "solved" or (
        args.build_only and not tool.compile_fails(chapter)
    ):
        if done.returncode != tool.SOLVED:
            print(
                f"FAIL: the check of a {args.mode} copy exited "
                f"{done.returncode}, "
                f"expected {tool.SOLVED}"
            )
            return 1
        if not args.build_only and "\nSolved: " not in output:
            print("FAIL: the check passed without saying Solved")
            return 1
        return 0
    if done.returncode != tool.NOT_SOLVED:
        print(
            f"FAIL: the check of an unsolved copy exited {done.returncode}, "
            f"expected {tool.NOT_SOLVED} (not solved yet)"
        )
        return 1
    if "\nNot solved yet: " not in output:
        print("FAIL: the check did not say 'Not solved yet'")
        return 1
    if not hint or " ".join(f"Hint: {hint}".split()) not in " ".join(
        output.split()
    ):
        print(
            f"FAIL: the failure did not show the chapter's hint "
            f"({chapter.name}/README.md, "
            "## Hint)"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
