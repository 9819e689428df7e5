"""broken_cupy.py -- Chapter 34, CuPy twin of broken.cu: the host reads a
managed buffer (cupy.cuda.malloc_managed) right after launching the kernel
that fills it, before it synchronizes, and sees what the buffer held before
the kernel."""
import ctypes
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_cupy_or_skip()

import cupy as cp
import numpy as np

N = 1024  # ints: 4 KiB of managed memory, no more

KERNEL = r"""
#include "clinic_wait.cuh"

#define SPIN_NS 200000000ull /* 200 ms: far longer than the host's read */

/* Waits SPIN_NS on the GPU's clock, then writes data[i] = i + 1. */
extern "C" __global__ void slow_fill(int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    clinic_gpu_wait_ns(SPIN_NS);
    if (i < n)
        data[i] = i + 1;
}
"""


def run():
    slow_fill = cp.RawKernel(KERNEL, "slow_fill",
                             options=("-I" + clinic.COMMON,))
    # 1: the host may touch managed memory while a kernel runs; 0: it may
    # not (README, "Where the read faults instead").
    concurrent = cp.cuda.runtime.deviceGetAttribute(
        cp.cuda.runtime.cudaDevAttrConcurrentManagedAccess,
        cp.cuda.Device().id)
    print("concurrentManagedAccess: %d" % concurrent)

    memory = cp.cuda.malloc_managed(N * 4)  # cudaMallocManaged, global
    data = cp.ndarray((N,), dtype=cp.int32, memptr=memory)
    # The same bytes seen from the host: a NumPy array over the pointer.
    host = np.ctypeslib.as_array((ctypes.c_int32 * N).from_address(memory.ptr))
    host[:] = -1  # a marker: any -1 left was never written by the GPU
    want = np.arange(1, N + 1, dtype=np.int32)

    slow_fill((N // 256,), (256,), (data, np.int32(N)))
    # BUG: the launch returns at once and nothing has waited for the
    # kernel, which is still spinning: the host reads its own markers.
    wrong = clinic.check_ints("host read of the managed buffer", host, want)
    cp.cuda.Device().synchronize()  # BUG: waits, but too late

    del host, data, memory  # the host view first, then the allocation
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
