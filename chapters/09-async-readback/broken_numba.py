"""broken_numba.py -- Chapter 09, Numba twin of broken.cu: the host reads a
pinned array right after copy_to_host(..., stream=s) returns, before the copy
has run, and sees old data."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_numba_or_skip()

import numpy as np
from numba import cuda
from clinic_numba import gpu_wait_ns

N = 1024
SPIN_NS = 200_000_000  # 200 ms: far longer than issuing a copy takes


@cuda.jit
def slow_fill(out):
    """Waits SPIN_NS on the GPU's clock, then writes out[i] = i + 1."""
    i = cuda.grid(1)
    gpu_wait_ns(SPIN_NS)
    if i < out.size:
        out[i] = i + 1


def usual_way(dev, want):
    """The usual Numba calls: a launch without a stream, on the default
    stream, then copy_to_host() without one (the driver's cuMemcpyDtoH),
    with no synchronize."""
    slow_fill[N // 256, 256](dev)
    return clinic.check_ints("kernel on stream 0, then copy_to_host",
                             dev.copy_to_host(), want)


def run():
    want = np.arange(1, N + 1, dtype=np.int32)
    dev = cuda.device_array(N, dtype=np.int32)
    pinned = cuda.pinned_array(N, dtype=np.int32)  # page-locked
    pinned[:] = -1  # a marker: any -1 left over was never copied back
    s = cuda.stream()

    wrong = usual_way(dev, want)  # no wait needed: prints 0 wrong

    slow_fill[N // 256, 256, s](dev)
    dev.copy_to_host(pinned, stream=s)
    # BUG: into pinned memory copy_to_host(stream=s) only queues the copy
    # behind the kernel and returns at once: pinned still holds the markers.
    wrong += clinic.check_ints("pinned array after copy_to_host(stream=s)",
                               pinned, want)
    s.synchronize()  # too late for the check
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
