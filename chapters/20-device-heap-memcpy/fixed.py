"""fixed.py -- Chapter 20, PyCUDA twin of fixed.cu: the kernel copies its
results from its device-heap array into a buffer from mem_alloc and frees the
heap array itself; the host copies that buffer straight back."""
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

# FIX: the results go where the host can reach them, out, a mem_alloc buffer;
# the heap array never leaves the device, and device code frees it.
KERNELS = r"""
__global__ void squares_on_heap(int *out, int n)
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
        memcpy(out, scratch, n * sizeof(int));
        free(scratch);
    }
}
"""


def run():
    result = np.full(N, -1, dtype=np.int32)  # -1: never copied back
    want = np.arange(N, dtype=np.int32) ** 2
    module = SourceModule(KERNELS)
    squares_on_heap = module.get_function("squares_on_heap")

    out = cuda.mem_alloc(result.nbytes)
    cuda.memset_d32(out, 0xFFFFFFFF, N)  # every int -1 until written
    squares_on_heap(out, np.int32(N), block=(N, 1, 1), grid=(1, 1))
    # A kernel wrote out, but out is still a mem_alloc buffer: it is copied
    # straight back, with no device-to-device "staging" copy.
    cuda.memcpy_dtoh(result, out)
    out.free()
    wrong = clinic.check_ints("squares", result, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
