#!/usr/bin/env python3
"""Runs every chapter program with and without the API trace library, on a
GPU host, and keeps the traces.

For each program (C broken/fixed/variants from the build tree, PyCUDA and
CuPy twins from the source tree): a plain run (which also warms caches such
as PyCUDA's compiled kernels), a traced run and a second plain run. The two
plain-versus-traced comparisons are of stdout, stderr and the exit status,
byte for byte; the times are wall-clock seconds of the traced run and of the
second plain run. Programs of chapters marked FAULTS or SERIAL run one at a
time after the rest, which run a few at a time.

Writes OUT/chNN/<program>.jsonl (the main process's trace; other processes'
files, if any, as <program>.<pid>.jsonl) and OUT/summary.json.

    record_traces.py --build BUILD --lib libclinic_trace.so --out DIR

With --store REPO_DIR it then copies them, trimmed, where the doctor's tests
read them (tests/doctor/traces); with --from DIR it only does that, for
traces recorded earlier (on the GPU host). Trimming drops the repeats of a
call that follow three identical ones (same api, no op, same result, same
thread: the runtime's device queries, PyCUDA's error-string probing), then,
past --cap records, the middle of the file; the end record says how many
records it lost ("trimmed"), and the numbers "n" of the rest are unchanged.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TWINS = ("broken.py", "fixed.py", "broken_cupy.py", "fixed_cupy.py",
         "broken_torch.py", "fixed_torch.py", "broken_numba.py",
         "fixed_numba.py")
SCRUBBED = (
    "CLINIC_DEBUG_SYNC",
    "CUDA_LAUNCH_BLOCKING",
    "CUDA_DEVICE_MAX_CONNECTIONS",
)


def chapter_programs(build, skip):
    """(chapter number, folder, program, command, cwd, alone) for each
    program."""
    found = []
    pattern = os.path.join(ROOT, "chapters", "[0-9][0-9]-*")
    for src in sorted(glob.glob(pattern)):
        name = os.path.basename(src)
        number = name[:2]
        if number in skip:
            continue
        with open(os.path.join(src, "CMakeLists.txt")) as f:
            cmake = f.read()
        alone = bool(re.search(r"\b(FAULTS|SERIAL)\b", cmake))
        variants = re.findall(r"VARIANTS\s+([\w\s]+?)\)", cmake)
        bdir = os.path.join(build, "chapters", name)
        progs = ["broken", "fixed"] + (variants[0].split() if variants else [])
        for prog in progs:
            exe = os.path.join(bdir, prog)
            if os.path.exists(exe):
                found.append((number, name, prog, [exe], bdir, alone))
        for twin in TWINS:
            path = os.path.join(src, twin)
            if os.path.exists(path):
                cmd = [sys.executable, path]
                found.append((number, name, twin, cmd, src, alone))
    return found


def transcript(out, err, rc):
    text = out + b"\n[stderr]\n" + err + b"\n[exit %s]" % str(rc).encode()
    return text.decode(errors="replace")[-2000:]


def run_once(cmd, cwd, trace_dir=None, lib=None, timeout=120):
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if trace_dir:
        env["CUDA_INJECTION64_PATH"] = lib
        env["CLINIC_TRACE_DIR"] = trace_dir
    start = time.monotonic()
    try:
        p = subprocess.run(
            cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout
        )
        out, err, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out, err, rc = e.stdout or b"", e.stderr or b"", "timeout"
    return out, err, rc, time.monotonic() - start


def one_program(item, lib, out_dir):
    number, name, prog, cmd, cwd, _ = item
    out1, err1, rc1, t_warm = run_once(cmd, cwd)
    tdir = tempfile.mkdtemp(prefix="trace-")
    out2, err2, rc2, t_traced = run_once(cmd, cwd, tdir, lib)
    out3, err3, rc3, t_plain = run_once(cmd, cwd)
    files = sorted(glob.glob(os.path.join(tdir, "api-*.jsonl")))
    dest = os.path.join(out_dir, "ch" + number)
    os.makedirs(dest, exist_ok=True)
    kept, records, cupti = [], 0, None
    for path in files:
        with open(path) as f:
            lines = f.readlines()
        start = json.loads(lines[0]) if lines else {}
        main = start.get("ppid") == os.getpid()
        suffix = ".jsonl" if main else ".%s.jsonl" % start.get("pid")
        target = os.path.join(dest, prog + suffix)
        shutil.copyfile(path, target)
        kept.append(os.path.basename(target))
        if main:
            records = len(lines)
            cupti = start.get("cupti")
    shutil.rmtree(tdir, ignore_errors=True)
    same = out1 == out2 and err1 == err2 and rc1 == rc2
    return {
        "chapter": number,
        "program": prog,
        "rc": [rc1, rc2, rc3],
        "identical": same,
        "plain_repeatable": out1 == out3 and err1 == err3 and rc1 == rc3,
        "seconds_plain": round(t_plain, 3),
        "seconds_traced": round(t_traced, 3),
        "seconds_first": round(t_warm, 3),
        "files": kept,
        "lines": records,
        "cupti": cupti,
        "diff": None if same else {
            "plain": transcript(out1, err1, rc1),
            "traced": transcript(out2, err2, rc2),
        },
    }


def trim(lines, cap):
    """Without repeats, and at most cap lines; see the module docstring."""
    recs = [json.loads(line) for line in lines]
    kept, run_key, run = [], None, 0
    for line, r in zip(lines, recs):
        key = None
        if r.get("ev") == "call" and "op" not in r:
            key = (r.get("api"), r.get("result"), r.get("tid"))
        run = run + 1 if key is not None and key == run_key else 1
        run_key = key
        if key is None or run <= 3:
            kept.append(line)
    if len(kept) > cap:  # keep the start (with the start record) and the end
        head = cap // 2
        kept = kept[:head] + kept[len(kept) - (cap - head):]
    lost = len(lines) - len(kept)
    end = json.loads(kept[-1])
    if lost and end.get("ev") == "end":
        end["trimmed"] = lost
        kept[-1] = json.dumps(end, separators=(",", ":")) + "\n"
    return kept


def store(src, dest, cap):
    """Copies src/chNN/*.jsonl (and summary.json) to dest, trimmed."""
    for path in sorted(glob.glob(os.path.join(src, "*", "*.jsonl"))):
        with open(path) as f:
            lines = f.readlines()
        rel = os.path.relpath(path, src)
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        with open(os.path.join(dest, rel), "w") as f:
            f.writelines(trim(lines, cap))
    summary = os.path.join(src, "summary.json")
    if os.path.exists(summary):
        merge_summary(summary, os.path.join(dest, "summary.json"))


def merge_summary(src, dest):
    """Writes dest's rows with src's in place of those of the same
    programs: a run of a few chapters keeps the others' rows."""
    with open(src) as f:
        new = json.load(f)
    old = []
    if os.path.exists(dest):
        with open(dest) as f:
            old = json.load(f)
    done = {(r["chapter"], r["program"]) for r in new}
    rows = [r for r in old if (r["chapter"], r["program"]) not in done]
    rows = sorted(rows + new, key=lambda r: (r["chapter"], r["program"]))
    with open(dest, "w") as f:
        json.dump(rows, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build")
    ap.add_argument("--lib")
    ap.add_argument("--out")
    ap.add_argument("--store", help="copy the traces, trimmed, here")
    ap.add_argument("--from", dest="src", help="store traces from here only")
    ap.add_argument("--cap", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=6)
    ap.add_argument(
        "--skip", default="32,33", help="chapters to leave out (2 GPUs)"
    )
    a = ap.parse_args()
    if a.src:
        store(a.src, a.store, a.cap)
        return 0
    if not (a.build and a.lib and a.out):
        ap.error("--build, --lib and --out are needed to record")
    lib = os.path.abspath(a.lib)
    if not os.path.exists(lib):  # CUDA ignores a missing injection library
        sys.exit("record_traces.py: %s does not exist" % lib)
    items = chapter_programs(os.path.abspath(a.build), set(a.skip.split(",")))
    os.makedirs(a.out, exist_ok=True)
    results = []
    together = [i for i in items if not i[5]]
    alone = [i for i in items if i[5]]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        runs = pool.map(lambda i: one_program(i, lib, a.out), together)
        for r in runs:
            results.append(r)
            print(json.dumps(r), flush=True)
    for i in alone:
        r = one_program(i, lib, a.out)
        results.append(r)
        print(json.dumps(r), flush=True)
    results.sort(key=lambda r: (r["chapter"], r["program"]))
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(results, f, indent=1)
    if a.store:
        store(a.out, a.store, a.cap)
    bad = [r for r in results if not r["identical"]]
    print(
        "%d programs, %d with output changed by the trace"
        % (len(results), len(bad))
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
