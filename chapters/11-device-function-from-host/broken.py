"""broken.py -- Chapter 11, PyCUDA twin of broken.cu: Python looks up a
__device__ function to launch it, which the module refuses: only __global__
kernels are entry points the host can fetch and launch."""
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
"""


def run():
    module = SourceModule(KERNELS)
    host = np.arange(N, dtype=np.int32)
    want = 3 * host

    dev = cuda.mem_alloc(host.nbytes)
    cuda.memcpy_htod(dev, host)
    # BUG: triple() is a __device__ function: code for kernels to call, not an
    # entry point that the host can look up or launch.
    triple_all = module.get_function("triple")
    triple_all(dev, np.int32(N), block=(256, 1, 1), grid=((N + 255) // 256, 1))
    cuda.memcpy_dtoh(host, dev)
    dev.free()

    if clinic.check_ints("tripled", host, want):
        return clinic.EXIT_WRONG_RESULT
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
