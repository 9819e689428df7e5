"""The CUDA API trace: the JSON-lines files that the injection library
(api-<pid>.jsonl) and the Python launch check (py-<pid>.jsonl) write into
CLINIC_TRACE_DIR, one file per process (format: docs/doctor.md). Reading
them into processes, and the run that makes them."""

import json
import os
import re
import tempfile
from pathlib import Path

from . import ROOT

LIBRARY_NAMES = ("libclinic_trace.so", "libclinic-trace.so",
                 "clinic_trace.so")
POINTER_FIELDS = ("ptr", "dst", "src", "stream", "event", "ctx")


def find_library(given=None, root=ROOT):
    """The injection library: as given (--trace-library or
    CLINIC_TRACE_LIBRARY), else the one a build folder of the project holds
    (build*/tools/trace/, then anywhere under build*/). None when there is
    none."""
    given = given or os.environ.get("CLINIC_TRACE_LIBRARY")
    if given:
        return given if os.path.isfile(given) else None
    builds = sorted(root.glob("build*")) + [root / "out"]
    for build in builds:  # where tools/trace/CMakeLists.txt builds it
        for name in LIBRARY_NAMES:
            if (build / "tools" / "trace" / name).is_file():
                return str(build / "tools" / "trace" / name)
    for build in builds:
        for name in LIBRARY_NAMES:
            for found in sorted(build.glob(f"**/{name}")):
                return str(found)
    return None


def trace_env(library, folder):
    """The environment of the trace run."""
    return {"CUDA_INJECTION64_PATH": library, "CLINIC_TRACE_DIR": folder}


def number(value):
    """A pointer or handle as an int ("0x7f..", an int, or None)."""
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.match(r"^0x[0-9a-fA-F]+$", value):
        return int(value, 16)
    return None


def read_lines(path):
    """(records, truncated): the whole JSON lines of a file; a line cut by
    a crash, or that is not JSON, ends the reading."""
    records, truncated = [], False
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return records, True
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            truncated = True
            break
        if isinstance(record, dict):
            records.append(record)
    return records, truncated


def api_process(path):
    """One process's CUPTI records: a dict with pid, exe, cupti, calls,
    complete (its end record was written), dropped, truncated, file."""
    records, truncated = read_lines(path)
    start = next((r for r in records if r.get("ev") == "start"), {})
    end = next((r for r in records if r.get("ev") == "end"), None)
    # Driver calls the runtime makes while it starts ("init") are not the
    # program's.
    calls = [r for r in records if r.get("ev") == "call"
             and not r.get("init")]
    for call in calls:
        call.setdefault("result", 0)
        call.setdefault("tid", 0)
    return {"pid": start.get("pid", pid_of(path)), "exe": start.get("exe"),
            "cupti": start.get("cupti", "ok" if records else "no records"),
            "calls": calls, "complete": end is not None,
            "dropped": (end or {}).get("dropped", {}),
            "truncated": truncated, "file": path.name}


def py_process(path):
    """One process's Python launch check records."""
    records, truncated = read_lines(path)
    start = next((r for r in records if r.get("ev") == "pystart"), {})
    return {"pid": start.get("pid", pid_of(path)),
            "argv": start.get("argv", []), "libs": start.get("libs", []),
            "records": records, "truncated": truncated, "file": path.name}


def pid_of(path):
    m = re.search(r"-([0-9]+)\.jsonl$", path.name)
    return int(m.group(1)) if m else None


def read_trace(folder):
    """Everything a trace run left in <folder>: {"api": [process...],
    "py": [process...]}, each list in pid order."""
    folder = Path(folder)
    api = [api_process(p) for p in sorted(folder.glob("api-*.jsonl"))]
    py = [py_process(p) for p in sorted(folder.glob("py-*.jsonl"))]
    return {"api": sorted(api, key=lambda p: p["pid"] or 0),
            "py": sorted(py, key=lambda p: p["pid"] or 0)}


def unavailable(trace):
    """Why the trace cannot be trusted, or None: a process whose CUPTI
    could not subscribe."""
    for process in trace["api"]:
        if process.get("cupti", "ok") != "ok":
            return f"process {process.get('pid')}: CUPTI {process['cupti']}"
    return None


def scratch_folder(scratch):
    return tempfile.mkdtemp(prefix="trace-", dir=scratch)


def quote(call):
    """A call as evidence: "#12 cudaMemcpy(dst=0x.., src=0x.., bytes=4,
    kind=2) -> cudaErrorInvalidValue"."""
    skip = ("n", "ev", "tid", "api", "layer", "result", "error", "op",
            "params", "dev", "ctx")
    fields = [f"{k}={fmt(v)}" for k, v in call.items() if k not in skip]
    text = f"#{call.get('n')} {call.get('api')}({', '.join(fields)})"
    if call.get("result"):
        text += f" -> {call.get('error', call['result'])}"
    return text


def fmt(value):
    if isinstance(value, list):
        return "[" + ",".join(fmt(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{fmt(v)}" for k, v in value.items()) + "}"
    return str(value)
