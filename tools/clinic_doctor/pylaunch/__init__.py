"""The doctor's launch check for Python programs.

site_dir() is the folder the doctor puts first on PYTHONPATH (with
CLINIC_TRACE_DIR set; environment() does both) when the examined command is
a Python program: its sitecustomize.py wraps the kernel launches of PyCUDA,
CuPy and Numba and writes py-<pid>.jsonl records, which read_records()
reads back and rules.findings() turns into findings for chapters 29, 30
and 32.
"""

import glob
import json
import os
import re


def site_dir():
    """The folder holding the check's sitecustomize.py."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "sitedir")


def environment(env, folder):
    """A copy of env (a dict) that starts the check in a Python program,
    writing into folder: site_dir() first on PYTHONPATH, CLINIC_TRACE_DIR
    set. Programs that are not Python are not affected by either."""
    out = dict(env)
    rest = out.get("PYTHONPATH")
    out["PYTHONPATH"] = site_dir() + (os.pathsep + rest if rest else "")
    out["CLINIC_TRACE_DIR"] = str(folder)
    return out


def read_records(folder):
    """Every record of every py-<pid>.jsonl in folder, file by file (in
    pid order), each with "pid" set from its file's name. A line cut short
    by a crash, or not JSON, is skipped."""
    records = []
    paths = glob.glob(os.path.join(str(folder), "py-*.jsonl"))

    def pid_of(path):
        m = re.search(r"py-(\d+)\.jsonl$", path)
        return int(m.group(1)) if m else -1

    for path in sorted(paths, key=pid_of):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                rec.setdefault("pid", pid_of(path))
                records.append(rec)
    return records
