"""fixed.py -- Chapter 11, PyCUDA twin of fixed.cu: a __global__ kernel calls
the __device__ function, and Python launches the kernel."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 256

KERNELS = """
/* Device code only: callable from kernels and other __device__ functions. */
__device__ int triple(int x)
{
    return 3 * x;
}

/* FIX: a __global__ kernel is what the host can launch, and inside it triple()
   is an ordinary function call. Each thread handles one element. */
__global__ void triple_all(int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = triple(data[i]);
}
"""


def run():
    module = SourceModule(KERNELS)
    host = np.arange(N, dtype=np.int32)
    want = 3 * host

    dev = cuda.mem_alloc(host.nbytes)
    cuda.memcpy_htod(dev, host)
    # FIX: look up and launch the kernel; it calls triple() on the GPU.
    triple_all = module.get_function("triple_all")
    triple_all(dev, np.int32(N), block=(256, 1, 1), grid=((N + 255) // 256, 1))
    cuda.memcpy_dtoh(host, dev)
    dev.free()

    if clinic.check_ints("tripled", host, want):
        return clinic.EXIT_WRONG_RESULT
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
