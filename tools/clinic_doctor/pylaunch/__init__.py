"""The doctor's launch check for Python programs.

site_dir() is the folder the doctor's trace run puts first on PYTHONPATH,
beside CLINIC_TRACE_DIR, when the examined command is a Python program
(tracerun.environment): its sitecustomize.py wraps the kernel launches of
PyCUDA, CuPy and Numba and writes py-<pid>.jsonl records, which
trace.read_trace() reads back and rules.findings() turns into findings for
chapters 29, 30 and 32.
"""

import os


def site_dir():
    """The folder holding the check's sitecustomize.py."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "sitedir")
