"""broken.py -- Chapter 20, PyCUDA twin of broken.cu: a kernel leaves its
results in memory from in-kernel malloc() and hands that pointer to the host,
whose memcpy_dtoh refuses it."""
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

KERNELS = r"""
__device__ int *squares_at; // BUG: where the host finds the squares
__global__ void squares_on_heap(int n)
{
    __shared__ int *scratch;
    int i = threadIdx.x;
    if (i == 0)
        scratch = (int *)malloc(n * sizeof(int));
    __syncthreads();
    if (scratch == NULL)
        return;
    if (i < n)
        scratch[i] = i * i;
    __syncthreads();
    if (i == 0) {
        // BUG: a device-heap address, which no driver API call accepts
        squares_at = scratch;
    }
}
"""


def run():
    result = np.full(N, -1, dtype=np.int32)  # -1: never copied back
    want = np.arange(N, dtype=np.int32) ** 2
    module = SourceModule(KERNELS)
    squares_on_heap = module.get_function("squares_on_heap")

    squares_on_heap(np.int32(N), block=(N, 1, 1), grid=(1, 1))
    address = np.zeros(1, dtype=np.uint64)
    cuda.memcpy_dtoh(address, module.get_global("squares_at")[0])
    dev = int(address[0])  # the squares on the device
    cuda.memcpy_dtoh(result, dev)
    wrong = clinic.check_ints("squares", result, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
