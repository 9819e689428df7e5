"""fixed.py -- Chapter 21, PyCUDA twin of fixed.cu: the device heap is raised to
128 MiB before the module that uses malloc() is loaded, and the kernel checks
every malloc() for NULL: a thread without memory would report -1."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

THREADS = 1024  # one block
SCRATCH_INTS = 8192  # 32 KiB a thread, 32 MiB for the block
HEAP_MIB = 128  # FIX: the device heap: the block's 32 MiB with room to spare

KERNEL = r"""
#define SCRATCH_INTS 8192

/* Every thread takes a scratch array from the device heap, fills it with its
   own index t, and writes the sum of the array, t * SCRATCH_INTS, to
   sums[t]. */
__global__ void sum_on_heap(int *sums)
{
    int t = threadIdx.x;
    int sum = 0;
    int *scratch = (int *)malloc(SCRATCH_INTS * sizeof(int));
    /* FIX: malloc() returns NULL when the heap cannot serve the request: a
       thread that got NULL skips the work and reports -1, a wrong sum. */
    int n = scratch != NULL ? SCRATCH_INTS : 0;
    for (int j = 0; j < n; j++)
        scratch[j] = t;
    __syncthreads(); /* here every thread holds its array: 32 MiB at once */
    for (int j = 0; j < n; j++)
        sum += scratch[j];
    free(scratch);
    sums[t] = scratch != NULL ? sum : -1; /* FIX: -1: no memory */
}
"""


def run():
    # A marker: -1 was never copied back.
    host = np.full(THREADS, -1, dtype=np.int32)
    want = np.arange(THREADS, dtype=np.int32) * SCRATCH_INTS
    print("%d threads, each malloc(%d) in the kernel: %d MiB in all"
          % (THREADS, SCRATCH_INTS * 4, (THREADS * SCRATCH_INTS * 4) >> 20))
    # FIX: the heap gets its size when the first module that uses malloc() is
    # loaded, and keeps it: raise the limit before SourceModule loads this one.
    cuda.Context.set_limit(cuda.limit.MALLOC_HEAP_SIZE, HEAP_MIB << 20)
    module = SourceModule(KERNEL)
    sum_on_heap = module.get_function("sum_on_heap")

    sums = cuda.mem_alloc(host.nbytes)
    sum_on_heap(sums, block=(THREADS, 1, 1), grid=(1, 1))
    cuda.memcpy_dtoh(host, sums)
    sums.free()
    wrong = clinic.check_ints("sums", host, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
