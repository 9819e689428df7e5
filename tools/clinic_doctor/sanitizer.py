"""compute-sanitizer: where it is, the options every tool of the Clinic runs
it with (the tests, the exercise checker and the doctor), and the doctor's
runs of its four tools."""

import concurrent.futures
import os
import re
import shutil
import tempfile
from pathlib import Path

from . import reports, runs

TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")
FOUND_ERRORS = 86  # compute-sanitizer's exit status when it found errors


def sanitizer_args(tool, log):
    """compute-sanitizer's options for one run of <tool>, the same for the
    tests, the exercise checker and the doctor: exit status FOUND_ERRORS
    when it found errors, at most 20 reports, the report into <log>, and
    for memcheck the leak check."""
    args = [
        "--tool",
        tool,
        "--error-exitcode",
        str(FOUND_ERRORS),
        "--print-limit",
        "20",
        "--log-file",
        log,
    ]
    if tool == "memcheck":
        args += ["--leak-check", "full"]
    return args


def find_sanitizer(given=None, nvcc=None):
    """compute-sanitizer for the tools run by hand (the tests get its path
    from CMake): as given (None if that does not exist), else next to nvcc
    (the one named, CUDACXX, the PATH's, /usr/local/cuda/bin), else on the
    PATH."""
    if given:
        return given if os.path.exists(given) or shutil.which(given) else None
    for compiler in (nvcc, os.environ.get("CUDACXX"), shutil.which("nvcc"),
                     "/usr/local/cuda/bin/nvcc"):
        path = compiler and (shutil.which(compiler) or compiler)
        if path and os.path.exists(path):
            beside = os.path.join(os.path.dirname(os.path.realpath(path)),
                                  "compute-sanitizer")
            if os.path.exists(beside):
                return beside
    return shutil.which("compute-sanitizer")


def sanitizer_command(sanitizer, tool, log, program):
    return [sanitizer] + sanitizer_args(tool, str(log)) + list(program)


def run_one(sanitizer, tool, command, scratch, limits):
    """One tool's run: (tool, run result, report text). <limits> holds the
    time it may take and the output limit."""
    log = Path(tempfile.mkdtemp(dir=scratch)) / f"{tool}.txt"
    result = runs.run(sanitizer_command(sanitizer, tool, log, command),
                      limits["timeout"], scratch=scratch,
                      output_limit=limits["output_limit"],
                      keep=limits["keep"])
    text = log.read_text(errors="replace") if log.exists() else ""
    if not text:
        text = result["out"] + result["err"]
    return tool, result, text


def run_tools(sanitizer, tools, command, scratch, limits, keep_dir=None):
    """The sanitizer tools, in parallel: (records, {tool: info})."""
    records, info = [], {}
    with concurrent.futures.ThreadPoolExecutor(len(tools)) as pool:
        try:
            done = list(pool.map(
                lambda t: run_one(sanitizer, t, command, scratch, limits),
                tools))
        except BaseException:
            runs.stop_all()  # Ctrl-C: the tools' programs go too
            raise
    for tool, result, text in done:
        if keep_dir:
            Path(keep_dir).mkdir(parents=True, exist_ok=True)
            (Path(keep_dir) / f"{tool}.txt").write_text(text)
        recs, summary = reports.parse_report(text, tool)
        info[tool] = tool_info(result, summary, recs, text, limits)
        records += recs
    return records, info


def tool_info(result, summary, recs, text, limits):
    """What the report says about one tool's run: status, time, counts, and
    the problem that makes it incomplete."""
    entry = {"status": result["status"], "seconds": result["seconds"],
             "errors": summary["errors"], "records": len(recs)}
    if summary.get("hazards") is not None:
        entry["hazards"] = summary["hazards"]
    if result["timed_out"]:
        entry["stopped"] = True
        entry["problem"] = (f"stopped after {limits['timeout']:g} s, "
                            f"{limits.get('why', 'its time limit')}: its "
                            "report is incomplete, not clean")
    elif result["too_much"]:
        entry["problem"] = ("output cut: the program wrote more than the "
                            "output limit under it, so its report is "
                            "incomplete, not clean")
    elif summary["problems"]:
        entry["problem"] = "; ".join(summary["problems"][:3])
    elif summary["errors"] is None and summary.get("hazards") is None:
        entry["problem"] = ("no summary line in its report: it did not "
                            "finish (" + result["status"] + ")")
    if re.search(r"did not initialize CUDA|before first instrumented API"
                 r"|no CUDA API", text, re.I):
        entry["not_cuda"] = True
    return entry
