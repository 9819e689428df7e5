"""broken.py -- Chapter 34, PyCUDA twin of broken.cu: the host reads a managed
array (managed_empty) right after launching the kernel that fills it, before
it synchronizes, and sees what the array held before the kernel."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 1024  # ints: 4 KiB of managed memory, no more

KERNEL = """
#include "clinic_wait.cuh"

#define SPIN_NS 200000000ull /* 200 ms: far longer than the host's read */

/* Waits SPIN_NS on the GPU's clock, then writes data[i] = i + 1. */
__global__ void slow_fill(int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    clinic_gpu_wait_ns(SPIN_NS);
    if (i < n)
        data[i] = i + 1;
}
"""


def run():
    module = SourceModule(KERNEL, include_dirs=[clinic.COMMON])
    slow_fill = module.get_function("slow_fill")
    # 1: the host may touch managed memory while a kernel runs; 0: it may
    # not (README, "Where the read faults instead").
    concurrent = pycuda.autoinit.device.get_attribute(
        cuda.device_attribute.CONCURRENT_MANAGED_ACCESS)
    print("concurrentManagedAccess: %d" % concurrent)

    data = cuda.managed_empty(N, np.int32,
                              mem_flags=cuda.mem_attach_flags.GLOBAL)
    data[:] = -1  # a marker: any -1 left was never written by the GPU
    want = np.arange(1, N + 1, dtype=np.int32)

    slow_fill(data, np.int32(N), block=(256, 1, 1), grid=(N // 256, 1))
    # BUG: the launch returns at once and nothing has waited for the
    # kernel, which is still spinning: the host reads its own markers.
    wrong = clinic.check_ints("host read of the managed buffer", data, want)
    pycuda.autoinit.context.synchronize()  # BUG: waits, but too late

    data.base.free()
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
