"""broken.py -- Chapter 07, PyCUDA twin of broken.cu: the device buffer is freed
before the results are copied out of it, so the copy reads through a dangling
address."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 1000

KERNEL = """
/* Writes out[i] = i * i for every i < n. */
__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
}
"""


def run():
    squares = SourceModule(KERNEL).get_function("squares")
    # A marker: any -1 left over was never copied back.
    host = np.full(N, -1, dtype=np.int32)
    want = np.arange(N, dtype=np.int32) ** 2

    dev = cuda.mem_alloc(host.nbytes)
    squares(dev, np.int32(N), block=(256, 1, 1), grid=((N + 255) // 256, 1))
    # BUG: the buffer is released before its last use. free() leaves the
    # DeviceAllocation object alive, and it still converts to the old address,
    # which now belongs to nobody (or, after the next mem_alloc(), perhaps to
    # someone else).
    dev.free()
    cuda.memcpy_dtoh(host, dev)

    if clinic.check_ints("squares", host, want):
        return clinic.EXIT_WRONG_RESULT
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
