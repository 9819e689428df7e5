#!/usr/bin/env python3
"""Loads the trace library the way the CUDA driver does (dlopen, then
InitializeInjection()) in a fresh process, and checks the file it writes.

Where no CUDA driver is found, CUPTI cannot subscribe, so the file must be
the start record alone, saying "unavailable: ..." (what the doctor reports as
"trace unavailable"). With a driver, the start says "ok" and an end record
follows at exit. Either way: one file, api-<pid>.jsonl, of whole JSON lines
numbered from 0; and nothing at all without CLINIC_TRACE_DIR.

    test_injection.py path/to/libclinic_trace.so
"""

import glob
import json
import os
import subprocess
import sys
import tempfile

CHILD = """
import ctypes, os, sys
lib = ctypes.CDLL(sys.argv[1])
print(os.getpid(), lib.InitializeInjection(), lib.InitializeInjection())
"""


def load(lib, env, cwd=None):
    p = subprocess.run([sys.executable, "-c", CHILD, lib], env=env, cwd=cwd,
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit("the child failed:\n%s%s" % (p.stdout, p.stderr))
    pid, first, second = p.stdout.split()
    if first != "1" or second != "1":
        sys.exit("InitializeInjection() returned %s, %s; want 1, 1"
                 % (first, second))
    return int(pid)


def main():
    lib = os.path.abspath(sys.argv[1])
    env = {k: v for k, v in os.environ.items() if k != "CLINIC_TRACE_DIR"}
    with tempfile.TemporaryDirectory() as quiet:
        load(lib, dict(env, TMPDIR=quiet), cwd=quiet)
        if os.listdir(quiet):
            sys.exit("without CLINIC_TRACE_DIR it wrote %s"
                     % os.listdir(quiet))
    with tempfile.TemporaryDirectory() as out:
        pid = load(lib, dict(env, CLINIC_TRACE_DIR=out))
        files = glob.glob(os.path.join(out, "*"))
        want = os.path.join(out, "api-%d.jsonl" % pid)
        if files != [want]:
            sys.exit("files written: %s; want %s" % (files, [want]))
        with open(want) as f:
            text = f.read()
    if not text.endswith("\n"):
        sys.exit("the last record is not a whole line: %r" % text[-80:])
    recs = [json.loads(line) for line in text.splitlines()]
    start = recs[0]
    for key, value in (("n", 0), ("ev", "start"), ("pid", pid)):
        if start.get(key) != value:
            sys.exit("start record %s is %r, want %r: %s"
                     % (key, start.get(key), value, start))
    if [r["n"] for r in recs] != list(range(len(recs))):
        sys.exit("records not numbered 0, 1, ...: %s" % recs)
    cupti = start.get("cupti", "")
    if cupti.startswith("unavailable: "):
        if len(recs) != 1:
            sys.exit("CUPTI unavailable, yet more records: %s" % recs)
    elif cupti != "ok" or recs[-1].get("ev") != "end":
        sys.exit("CUPTI %r, and the last record is %s" % (cupti, recs[-1]))
    print("trace library: one file, %d record(s), cupti %r"
          % (len(recs), cupti))


if __name__ == "__main__":
    main()
