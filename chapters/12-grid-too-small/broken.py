"""broken.py -- Chapter 12, PyCUDA twin of broken.cu: the grid is computed
with floor division, so the last elements get no thread and come back
untouched."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 1000     # not a multiple of BLOCK: the last block is a partial one
BLOCK = 256  # threads per block
# What memset_d32(0xffffffff) leaves in every int; no thread writes it.
MARKER = -1

KERNEL = """
__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
}
"""


def run():
    squares = SourceModule(KERNEL).get_function("squares")
    want = np.arange(N, dtype=np.int32) ** 2
    host = np.empty(N, dtype=np.int32)
    # BUG: floor division rounds down. 1000 // 256 is 3 blocks, 768 threads,
    # so elements 768 to 999 have no thread at all.
    blocks = N // BLOCK

    dev = cuda.mem_alloc(host.nbytes)
    # Every int -1: anything still -1 afterwards was never written by the
    # kernel.
    cuda.memset_d32(dev, 0xFFFFFFFF, N)
    print("grid: %d blocks of %d threads = %d threads for %d elements"
          % (blocks, BLOCK, blocks * BLOCK, N))
    squares(dev, np.int32(N), block=(BLOCK, 1, 1), grid=(blocks, 1))
    cuda.memcpy_dtoh(host, dev)
    dev.free()

    print("untouched: %d of %d elements still hold the marker %d"
          % (np.count_nonzero(host == MARKER), N, MARKER))
    if clinic.check_ints("squares", host, want):
        return clinic.EXIT_WRONG_RESULT
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
