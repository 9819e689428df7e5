"""The launch check on the GPU host: which numpy lets Numba, CuPy, PyTorch
and PyCUDA import together, then chapters 29 and 30's Python twins and the
g_*.py programs here, each run without and with the check: the output must
be the same, and the records must give the expected findings.

  python3 tests/doctor/pylaunch_gpu/run_gpu.py WHEELS OUT

WHEELS holds np24/, np23/ (numpy wheels to try, in that order) and pycuda/
(PyCUDA and its needs, without numpy); everything is installed with pip
--no-index --target under /tmp. OUT receives pylaunch.tar (summary.txt,
summary.json, env.json, every run's output and records). Not a CTest test:
it was run once by hand through the device tool (see the report).
"""

import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from clinic_doctor import pylaunch  # noqa: E402
from clinic_doctor.pylaunch import rules  # noqa: E402

PROBE = r"""
import json, sys
out = {}
def probe(name, fn):
    try:
        out[name] = fn()
    except BaseException as e:
        out[name] = "FAIL %s: %s" % (type(e).__name__, str(e)[:200])
import numpy
out["numpy"] = numpy.__version__
def numba_probe():
    import numba, importlib.metadata as md
    from numba import cuda
    @cuda.jit
    def k(a):
        a[cuda.grid(1)] += 1
    d = cuda.to_device(numpy.zeros(4, dtype=numpy.float32))
    k[1, 4](d)
    try:
        nc = md.version("numba-cuda")
    except Exception:
        nc = None
    import llvmlite
    return {"numba": numba.__version__, "numba-cuda": nc,
            "llvmlite": llvmlite.__version__,
            "ran": d.copy_to_host().tolist()}
def cupy_probe():
    import cupy
    return {"cupy": cupy.__version__,
            "ran": float(cupy.arange(4, dtype=cupy.float32).sum())}
def torch_probe():
    import torch
    t = torch.arange(4, dtype=torch.float32, device="cuda")
    return {"torch": torch.__version__, "ran": float(t.sum()),
            "numpy_bridge": t.cpu().numpy().tolist()}
def pycuda_probe():
    import pycuda, pycuda.autoinit, pycuda.gpuarray as ga
    return {"pycuda": pycuda.VERSION_TEXT,
            "ran": float(ga.to_gpu(numpy.arange(4.0)).get().sum())}
for name, fn in (("numba", numba_probe), ("cupy", cupy_probe),
                 ("torch", torch_probe), ("pycuda", pycuda_probe)):
    probe(name, fn)
print(json.dumps(out))
"""

EXPECT = {
    "chapters/29-dtype-mismatch/broken.py": ["29"],
    "chapters/29-dtype-mismatch/fixed.py": [],
    "chapters/29-dtype-mismatch/broken_cupy.py": ["29"],
    "chapters/29-dtype-mismatch/fixed_cupy.py": [],
    "chapters/30-non-contiguous-array/broken.py": ["30"],
    "chapters/30-non-contiguous-array/fixed.py": [],
    "chapters/30-non-contiguous-array/broken_cupy.py": ["30"],
    "chapters/30-non-contiguous-array/fixed_cupy.py": [],
    "tests/doctor/pylaunch_gpu/g_numba_f64.py": ["29"],
    "tests/doctor/pylaunch_gpu/g_numba_ok.py": [],
    "tests/doctor/pylaunch_gpu/g_torch_view.py": ["30"],
    "tests/doctor/pylaunch_gpu/g_torch_f64.py": ["29"],
    "tests/doctor/pylaunch_gpu/g_cupy_ok.py": [],
}


def install(wheels, target):
    files = sorted(glob.glob(os.path.join(wheels, "*.whl")))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                    "--no-index", "--no-deps", "--no-compile",
                    "--no-cache-dir", "--target", target, *files],
                   check=True)


def run(prog, pythonpath, trace_dir, timeout=180):
    env = dict(os.environ)
    env.pop("CLINIC_TRACE_DIR", None)
    env["PYTHONPATH"] = pythonpath
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if trace_dir:
        env["CLINIC_TRACE_DIR"] = trace_dir
    prog = ROOT / prog
    start = time.time()
    p = subprocess.run([sys.executable, prog.name], cwd=str(prog.parent),
                       env=env, capture_output=True, text=True,
                       timeout=timeout)
    return {"out": p.stdout, "err": p.stderr, "code": p.returncode,
            "seconds": round(time.time() - start, 2)}


def main():
    wheels, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    work = Path(tempfile.mkdtemp(prefix="pylaunch-gpu-"))
    env = {"python": sys.version, "executable": sys.executable}
    candidates = {"default": "/tmp/pl-pycuda",
                  "np24": "/tmp/pl-np24:/tmp/pl-pycuda",
                  "np23": "/tmp/pl-np23:/tmp/pl-pycuda"}
    dry = os.environ.get("PYLAUNCH_DRY_PATH")  # a CPU try-out with fakes
    if dry:
        candidates = {k: dry for k in candidates}
    else:
        for name in ("np24", "np23", "pycuda"):
            install(str(wheels / name), "/tmp/pl-" + name)

    def probe(path):
        e = dict(os.environ, PYTHONPATH=path)
        p = subprocess.run([sys.executable, "-c", PROBE], env=e,
                           capture_output=True, text=True, timeout=300)
        try:
            return json.loads(p.stdout.strip().splitlines()[-1])
        except Exception:
            return {"error": (p.stdout + p.stderr)[-2000:]}

    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        probes = dict(zip(candidates, pool.map(probe, candidates.values())))
    env["probes"] = probes
    chosen = None
    for name in ("np24", "np23"):
        res = probes[name]
        if all(isinstance(res.get(k), dict)
               for k in ("numba", "cupy", "torch", "pycuda")):
            chosen = name
            break
    env["chosen"] = chosen
    site = pylaunch.site_dir()

    def path_for(prog):
        """The numpy chosen, or else the first that the program's own
        libraries import with."""
        needs = (["pycuda"] if prog.endswith(("broken.py", "fixed.py"))
                 else ["numba"] if "numba" in prog else ["cupy", "torch"])
        for name in ([chosen] if chosen else []) + ["np24", "np23",
                                                    "default"]:
            if all(isinstance(probes[name].get(k), dict) for k in needs):
                return candidates[name]
        return candidates["np24"]

    jobs = []
    for prog in EXPECT:
        slug = prog.replace("/", "_")
        trace_dir = work / ("trace_" + slug)
        trace_dir.mkdir()
        jobs.append((prog, slug, trace_dir))

    def both(job):
        prog, slug, trace_dir = job
        base = path_for(prog)
        plain = run(prog, base, None)
        traced = run(prog, site + os.pathsep + base, str(trace_dir))
        traced["path"] = base
        return prog, slug, trace_dir, plain, traced

    results = []
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for prog, slug, trace_dir, plain, traced in pool.map(both, jobs):
            records = []
            for path in sorted(trace_dir.glob("py-*.jsonl")):
                with open(path) as f:
                    records += [json.loads(line) for line in f]
            found = rules.findings(records)
            chapters = sorted(set(f["chapter"] for f in found))
            same = (plain["out"], plain["code"]) == (traced["out"],
                                                     traced["code"])
            ok = same and chapters == EXPECT[prog] and plain["code"] != 77
            results.append({
                "program": prog, "ok": ok, "path": traced["path"],
                "stdout_same": same,
                "stderr_same": plain["err"] == traced["err"],
                "exit": [plain["code"], traced["code"]],
                "seconds": [plain["seconds"], traced["seconds"]],
                "expected": EXPECT[prog], "chapters": chapters,
                "findings": found,
                "launches": sum(1 for r in records
                                if r.get("ev") == "pylaunch"),
                "ends": [r for r in records if r.get("ev") == "pyend"],
                "errors": [r for r in records if r.get("ev") == "pyerror"]})
            for kind, r in (("plain", plain), ("traced", traced)):
                (work / ("%s.%s.out" % (slug, kind))).write_text(
                    r["out"] + "[stderr]\n" + r["err"] +
                    "[exit status: %s]\n" % r["code"])
    diag_dir = work / "trace_diag"
    diag_dir.mkdir()
    env["diag"] = run("tests/doctor/pylaunch_gpu/g_diag.py",
                      site + os.pathsep + path_for("numba"), str(diag_dir))
    lines = ["numpy chosen: %s" % chosen]
    for name, res in probes.items():
        lines.append("probe %s: %s" % (name, json.dumps(res)[:600]))
    lines.append("diag: " + env["diag"]["out"].replace("\n", " | ")
                 + env["diag"]["err"][-800:])
    for r in results:
        lines.append("%s %-50s stdout same: %s, stderr same: %s, exit %s, "
                     "%s s, launches %d, chapters %s (want %s), %s" % (
                         "OK  " if r["ok"] else "FAIL", r["program"],
                         r["stdout_same"], r["stderr_same"], r["exit"],
                         r["seconds"], r["launches"], r["chapters"],
                         r["expected"], r["path"]))
        for f in r["findings"]:
            lines.append("      %s: %s | %s" % (f["chapter"], f["summary"],
                                                f["evidence"][0]))
        for e in r["ends"]:
            lines.append("      pyend: failures %s, internal %s, libs %s"
                         % (e.get("failures"), e.get("internal"),
                            e.get("libs")))
    lines.append("%d of %d programs as expected" % (
        sum(r["ok"] for r in results), len(results)))
    (work / "summary.txt").write_text("\n".join(lines) + "\n")
    (work / "summary.json").write_text(json.dumps(results, indent=1))
    (work / "env.json").write_text(json.dumps(env, indent=1))
    out.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out / "pylaunch.tar", "w") as tar:
        tar.add(str(work), arcname="pylaunch")
    shutil.copy(work / "summary.txt", out / "summary.txt")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
