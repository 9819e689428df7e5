"""fixed.py -- Chapter 12, PyCUDA twin of fixed.cu: the number of blocks is
rounded up, so every element gets a thread; the kernel's bounds check stops
the spare threads of the last block."""
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
    # FIX: round up, so a partial block at the end still gets launched:
    # 4 blocks, 1024 threads; the kernel's if (i < n) stops the 24 spare ones.
    blocks = (N + BLOCK - 1) // BLOCK

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
