"""The fifth kind of run: the program at plain speed with the CUPTI
injection library (CUDA_INJECTION64_PATH) and, for a Python program, the
launch check's sitecustomize first on PYTHONPATH. Its records go through
the trace rules and the Python launch check's rules."""

import os
import shutil
import tempfile

from . import rules, trace

try:  # the Python launch check, a subpackage of its own
    from . import pylaunch
    from .pylaunch import rules as pylaunch_rules
except ImportError:  # not there: Python launches are not checked
    pylaunch = pylaunch_rules = None


def python_rules():
    return pylaunch_rules.findings if pylaunch_rules else None


def environment(library, folder, python):
    """The trace run's environment: the injection library, the folder the
    records go to, and for Python the launch check's site folder."""
    env = trace.trace_env(library, folder)
    if python and pylaunch is not None:
        paths = [pylaunch.site_dir()] + [
            p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p]
        env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def run_trace(run, library, python, scratch, keep=None):
    """(run result, trace) of the trace run; <run> runs the program with
    extra environment (examine.run_program). The trace is None when no
    injection library was found. --keep keeps the records in trace/."""
    if not library:
        return None, None
    folder = tempfile.mkdtemp(prefix="trace-", dir=scratch)
    try:
        result = run(environment(library, folder, python))
        if keep:
            shutil.copytree(folder, os.path.join(keep, "trace"),
                            dirs_exist_ok=True)
        return result, trace.read_trace(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def did_cuda_work(found):
    """True when a trace shows the program made CUDA calls beyond the
    runtime's start-up: an allocation, a copy, a launch, a memset."""
    return any(c.get("op") in ("alloc", "copy", "launch", "memset")
               for p in found.get("api", []) for c in p["calls"])


def findings(found, context):
    """The trace rules' and the launch check's findings."""
    return rules.trace_findings(found, context, python_rules())


def ruled_out(found):
    """The chapters the trace speaks against (rules.ruled_out)."""
    return rules.ruled_out(found)
