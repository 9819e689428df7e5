"""The machine the program runs on: the driver, the GPUs, and the errors
that say the environment, not the program, is at fault."""

import json
import os
import re
import subprocess
import sys

from .runs import transcript

# CUDA errors that say the environment, not the program, is at fault.
ENV_ERRORS = {
    "cudaErrorNoDevice": "no CUDA GPU is visible to the program",
    "cudaErrorInsufficientDriver": "the CUDA driver is missing or older "
    "than the toolkit the program was built with",
    "cudaErrorStubLibrary": "the program loaded the toolkit's stub "
    "libcuda.so instead of the driver (check LD_LIBRARY_PATH)",
    "cudaErrorCompatNotSupportedOnDevice": "the forward-compatibility "
    "driver does not support this GPU",
    "cudaErrorSystemDriverMismatch": "the driver's kernel module and "
    "user library differ in version",
    "cudaErrorDevicesUnavailable": "the GPU is busy or unavailable "
    "(exclusive mode?)",
}
# The driver probe, run in a child so that a hung or crashing driver cannot
# take the doctor with it. It prints one JSON object.
DRIVER_PROBE = r"""
import ctypes, json
out = {}
try:
    cu = ctypes.CDLL("libcuda.so.1")
except OSError as e:
    print(json.dumps({"driver": None, "why": str(e)})); raise SystemExit
v = ctypes.c_int(0)
cu.cuDriverGetVersion(ctypes.byref(v))
out["driver"] = v.value
rc = cu.cuInit(0)
out["init"] = rc
n = ctypes.c_int(0)
if rc == 0:
    cu.cuDeviceGetCount(ctypes.byref(n))
out["devices"] = n.value
gpus = []
for i in range(n.value):
    d = ctypes.c_int(0)
    cu.cuDeviceGet(ctypes.byref(d), i)
    name = ctypes.create_string_buffer(256)
    cu.cuDeviceGetName(name, 256, d)
    major, minor = ctypes.c_int(0), ctypes.c_int(0)
    cu.cuDeviceGetAttribute(ctypes.byref(major), 75, d)
    cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, d)
    gpus.append({"name": name.value.decode(errors="replace"),
                 "cc": "%d.%d" % (major.value, minor.value)})
out["gpus"] = gpus
print(json.dumps(out))
"""


def probe_driver(timeout=60):
    """What the driver says: {"driver": version or None, "devices": n,
    "gpus": [...], "why": ...}. CLINIC_DOCTOR_PROBE (JSON) stands in for it
    in the doctor's own tests."""
    forced = os.environ.get("CLINIC_DOCTOR_PROBE")
    if forced:
        return json.loads(forced)
    try:
        p = subprocess.run(
            [sys.executable, "-c", DRIVER_PROBE],
            capture_output=True, text=True, timeout=timeout,
        )
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return {"driver": None, "why": "the driver probe did not answer"}


def environment_problems(probe, plain, sanitizer, tools):
    """What keeps the doctor from examining the program: [(fact, text)]."""
    problems = []
    text = transcript(plain["out"], plain["err"], plain["status"])
    skipped = re.match(r"\[SKIPPED\] ([^\n]+)", plain["out"])
    if probe.get("driver") is None:
        problems.append(("no-driver", "no CUDA driver: libcuda.so.1 cannot "
                         f"be loaded ({probe.get('why', '')})"))
    elif probe.get("devices", 0) == 0:
        problems.append(("no-gpu", "the CUDA driver (version "
                         f"{probe.get('driver')}) sees no GPU "
                         f"(cuInit returned {probe.get('init')})"))
    for name, why in ENV_ERRORS.items():
        if name in text:
            problems.append(("env-error", f"the program reports {name}: "
                             f"{why}"))
    if plain["code"] == 77 and skipped:
        problems.append(("skipped", "the program skipped itself: "
                         + skipped.group(1)))
    if not sanitizer and tools:
        problems.append(("no-sanitizer", "compute-sanitizer was not found "
                         "next to nvcc or on the PATH (pass --sanitizer): "
                         "memcheck, racecheck, initcheck and synccheck "
                         "could not look"))
    return problems
