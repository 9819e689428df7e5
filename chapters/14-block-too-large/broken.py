"""broken.py -- Chapter 14, PyCUDA twin of broken.cu: the kernel is launched
with 2048 threads per block, more than the device allows. PyCUDA has no
unchecked launch: the call raises at once."""
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
    block = 2048  # threads per block

    dev = cuda.mem_alloc(host.nbytes)
    # Every int -1: anything still -1 afterwards was never written by the
    # kernel.
    cuda.memset_d32(dev, 0xFFFFFFFF, N)
    print("block size: %s the device's limit of %d threads per block"
          % ("within" if block <= max_threads else "above", max_threads))
    # BUG: 2048 threads per block is more than the device allows. PyCUDA checks
    # what the driver returns, so the launch raises pycuda.driver.LogicError
    # here; clinic.main prints it and exits with status 2.
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
