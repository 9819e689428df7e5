"""The command line of the doctor:

  tools/clinic-doctor [options] -- ./your_program args...

Exit status: 0 no finding, 1 findings, 2 the program could not be examined
(the message says why), or a usage error.
"""

import argparse
import os
import re
import signal
import sys
import time
from pathlib import Path

from . import CANNOT_EXAMINE, ROOT, CannotExamine
from .examine import examine, finish
from .report import as_json, render
from .runs import stop_all
from .sanitizer import TOOLS

DESCRIPTION = ("The clinic doctor: run your own CUDA program several ways "
               "and be told which chapter of the Clinic explains what went "
               "wrong.")


def parser():
    p = argparse.ArgumentParser(
        prog="clinic-doctor",
        usage="clinic-doctor [options] -- ./your_program args...",
        description=DESCRIPTION,
        epilog="Exit status: 0 no finding, 1 findings, 2 could not examine "
        "the program (or a usage error). See docs/doctor.md.",
    )
    add = p.add_argument
    add("--repeat", type=int, default=3,
        help="plain runs in all, to compare (default 3)")
    add("--timeout", type=float, default=60,
        help="seconds one plain run may take (default 60)")
    add("--tool-timeout", type=float, default=300,
        help="seconds one sanitizer run may take (default 300)")
    add("--tools", default=",".join(TOOLS),
        help="sanitizer tools, comma separated (default: all four); empty "
        "for none")
    add("--sanitizer", help="the compute-sanitizer to use (default: next "
        "to nvcc, else on the PATH)")
    add("--wrong-result", action="store_true",
        help="the result is wrong: list the silent causes when no tool sees "
        "a fault")
    add("--ignore", help="a regex: output lines that may differ between "
        "runs (timings)")
    add("--source", action="append", default=[],
        help="a source file or folder to read for hints (default: the files "
        "the reports name, in the program's folder and the current one, and "
        "the script of python3 script.py)")
    add("--keep", help="a folder to keep the sanitizer reports in")
    add("--json", action="store_true", help="print the findings as JSON")
    add("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    add("--budget", type=float, default=60,
        help="seconds the whole examination may take (default 60): a run "
        "or tool that does not finish in its share is stopped, and the "
        "report says so")
    add("--trace-library", help="the API trace library "
        "(libclinic_trace.so; default: $CLINIC_TRACE_LIBRARY, else the "
        "project's build)")
    add("--output-limit", type=int, default=64, metavar="MIB",
        help="MiB a run may write before it is stopped (default "
        "%(default)s)")
    add("command", nargs=argparse.REMAINDER)
    return p


def parse(argv):
    """The options, checked; None when no program is named."""
    p = parser()
    args = p.parse_args(argv)
    command = args.command
    if command and command[0] == "--":
        command = command[1:]
    args.command = command
    if not command:
        p.print_usage(sys.stderr)
        print("clinic-doctor: name the program to examine after --",
              file=sys.stderr)
        return None
    args.tools = [t for t in args.tools.split(",") if t.strip()]
    for tool in args.tools:
        if tool not in TOOLS:
            p.error(f"unknown sanitizer tool '{tool}'")
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    check_inputs(p, args)
    return args


def check_inputs(p, args):
    """Input errors, caught before anything runs: argparse's error() says
    what is wrong and exits 2."""
    if args.ignore is not None:
        try:
            re.compile(args.ignore)
        except re.error as error:
            p.error(f"--ignore {args.ignore!r} is not a regular expression: "
                    f"{error}")
    if args.keep and os.path.exists(args.keep) and not os.path.isdir(
            args.keep):
        p.error(f"--keep {args.keep}: a file of that name exists; name a "
                "folder")
    if args.budget <= 0 or args.timeout <= 0 or args.tool_timeout <= 0:
        p.error("--budget, --timeout and --tool-timeout must be positive")


def write(report, args):
    """Prints the report; a reader that stopped reading (clinic-doctor ... |
    head) ends it quietly, the Python documentation's way (further output
    to /dev/null)."""
    try:
        sys.stdout.write(as_json(report) + "\n" if args.json
                         else render(report))
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def terminated(signum, frame):
    """SIGTERM: stop like Ctrl-C, taking the examined program's process
    group with the doctor."""
    raise KeyboardInterrupt


def main(argv=None):
    args = parse(argv)
    if args is None:
        return CANNOT_EXAMINE
    command = args.command
    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        report = examine(args, command)
    except CannotExamine as error:
        report = {"program": command, "runs": {}, "findings": [],
                  "notes": [], "cannot_examine": [str(error)],
                  "seconds": 0.0}
        report = finish(report, time.monotonic())
    except KeyboardInterrupt:
        stop_all()
        print("clinic-doctor: interrupted; the examined program was stopped",
              file=sys.stderr)
        return CANNOT_EXAMINE
    finally:
        signal.signal(signal.SIGTERM, previous)
    write(report, args)
    return report["exit"]
