"""fixed.py -- Chapter 14, PyCUDA twin of fixed.cu: the block size is the
kernel's own limit on this device, MAX_THREADS_PER_BLOCK, so the launch is
accepted and every result comes back."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 4096
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
    max_threads = pycuda.autoinit.device.get_attribute(
        cuda.device_attribute.MAX_THREADS_PER_BLOCK)
    # FIX: the most threads per block this kernel can be launched with on this
    # device (it accounts for the kernel's registers too). PyCUDA has no
    # binding of cudaOccupancyMaxPotentialBlockSize.
    block = squares.get_attribute(cuda.function_attribute.MAX_THREADS_PER_BLOCK)

    dev = cuda.mem_alloc(host.nbytes)
    # Every int -1: anything still -1 afterwards was never written by the
    # kernel.
    cuda.memset_d32(dev, 0xFFFFFFFF, N)
    print("block size: %s the device's limit of %d threads per block"
          % ("within" if block <= max_threads else "above", max_threads))
    squares(dev, np.int32(N), block=(block, 1, 1),
            grid=((N + block - 1) // block, 1))
    cuda.memcpy_dtoh(host, dev)
    dev.free()

    print("untouched: %d of %d elements still hold the marker %d"
          % (np.count_nonzero(host == MARKER), N, MARKER))
    if clinic.check_ints("squares", host, want):
        return clinic.EXIT_WRONG_RESULT
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
