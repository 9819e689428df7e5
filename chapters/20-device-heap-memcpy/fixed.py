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

KERNELS = r"""
__global__ void squares_on_heap(int *out, int n) // FIX: the host's buffer
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
        // FIX: into out, from mem_alloc; only device code frees the heap
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

    dev = cuda.mem_alloc(result.nbytes)  # FIX: out, for the kernel
    squares_on_heap(dev, np.int32(N), block=(N, 1, 1), grid=(1, 1))
    cuda.memcpy_dtoh(result, dev)
    dev.free()
    wrong = clinic.check_ints("squares", result, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
