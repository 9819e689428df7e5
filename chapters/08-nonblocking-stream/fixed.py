"""fixed.py -- Chapter 08, PyCUDA twin of fixed.cu: the host waits for the
kernel's non-blocking stream before the plain memcpy_dtoh(), so every result
comes back."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 1024

KERNEL = """
#include "clinic_wait.cuh"

#define SPIN_NS 200000000ull /* 200 ms: far longer than issuing a copy takes */

/* Waits SPIN_NS on the GPU's clock, then writes out[i] = i + 1. */
__global__ void slow_fill(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    clinic_gpu_wait_ns(SPIN_NS);
    if (i < n)
        out[i] = i + 1;
}
"""


def start_slow_fill(slow_fill, dev, stream):
    """Zeros dev, then starts slow_fill on stream (None is the legacy default
    stream). Returns an event recorded right after the kernel on its stream."""
    cuda.memset_d32(dev, 0, N)
    cuda.Context.synchronize()  # the zeros are in place before any stream
    slow_fill(dev, np.int32(N), block=(256, 1, 1), grid=(N // 256, 1),
              stream=stream)
    return cuda.Event().record(stream)


def report(name, host, kernel_done):
    """Call right after the copy: says whether the kernel had finished, and
    checks host."""
    # True: the kernel had finished; False: it was still running. PyCUDA has no
    # handle for the default stream to query, so an event stands in.
    print("%s: after the copy, kernel done (Event.query): %s"
          % (name, kernel_done.query()))
    want = np.arange(1, N + 1, dtype=np.int32)
    wrong = clinic.check_ints(name, host, want)
    kernel_done.synchronize()  # the kernel ends before dev is zeroed or freed
    return wrong


def run():
    module = SourceModule(KERNEL, include_dirs=[clinic.COMMON])
    slow_fill = module.get_function("slow_fill")
    host = np.empty(N, dtype=np.int32)
    dev = cuda.mem_alloc(host.nbytes)
    blocking = cuda.Stream()               # flags 0: a blocking stream
    nonblocking = cuda.Stream(flags=1)     # CU_STREAM_NON_BLOCKING
    wrong = 0

    # A plain memcpy_dtoh() goes to the legacy default stream, which waits for
    # its own work and for every blocking stream: no synchronize needed.
    kernel_done = start_slow_fill(slow_fill, dev, None)
    cuda.memcpy_dtoh(host, dev)
    wrong += report("legacy default stream", host, kernel_done)
    kernel_done = start_slow_fill(slow_fill, dev, blocking)
    cuda.memcpy_dtoh(host, dev)
    wrong += report("blocking stream", host, kernel_done)

    kernel_done = start_slow_fill(slow_fill, dev, nonblocking)
    # FIX: the legacy default stream does not wait for a non-blocking stream,
    # so the host waits for that stream, and so for the kernel, first.
    nonblocking.synchronize()
    cuda.memcpy_dtoh(host, dev)
    wrong += report("non-blocking stream", host, kernel_done)

    dev.free()
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
