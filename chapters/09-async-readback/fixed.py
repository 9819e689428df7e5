"""fixed.py -- Chapter 09, PyCUDA twin of fixed.cu: the host waits for the
stream, and so for the memcpy_dtoh_async() copy, before it reads the
page-locked array."""
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


def usual_way(slow_fill, dev, want):
    """The usual PyCUDA calls: a launch without stream=, on the legacy default
    stream, then memcpy_dtoh() (the driver's cuMemcpyDtoH), with no
    synchronize."""
    pageable = np.empty(N, dtype=np.int32)
    cuda.memset_d32(dev, 0, N)
    slow_fill(dev, np.int32(N), block=(256, 1, 1), grid=(N // 256, 1))
    cuda.memcpy_dtoh(pageable, dev)
    return clinic.check_ints("kernel on stream 0, then cuMemcpyDtoH",
                             pageable, want)


def run():
    module = SourceModule(KERNEL, include_dirs=[clinic.COMMON])
    slow_fill = module.get_function("slow_fill")
    want = np.arange(1, N + 1, dtype=np.int32)
    dev = cuda.mem_alloc(want.nbytes)
    pinned = cuda.pagelocked_empty(N, np.int32)  # page-locked
    pinned[:] = -1  # a marker: any -1 left over was never copied back
    s = cuda.Stream()

    wrong = usual_way(slow_fill, dev, want)  # no wait needed: prints 0 wrong

    slow_fill(dev, np.int32(N), block=(256, 1, 1), grid=(N // 256, 1), stream=s)
    cuda.memcpy_dtoh_async(pinned, dev, s)
    # FIX: into page-locked memory memcpy_dtoh_async() only queues the copy
    # behind the kernel and returns at once: wait for the stream before reading.
    s.synchronize()
    wrong += clinic.check_ints("pinned buffer after memcpy_dtoh_async",
                               pinned, want)

    dev.free()
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
