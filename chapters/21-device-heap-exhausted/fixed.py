"""fixed.py -- Chapter 21, PyCUDA twin of fixed.cu: the device heap is raised to
128 MiB before the module that uses malloc() is loaded, and the kernel checks
every malloc() for NULL and counts the failures: there are none."""
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
HEAP_MIB = 128  # the device heap: the block's 32 MiB with room to spare

# FIX: check every malloc() for NULL, and make a failure visible to the host
# instead of writing through it.
KERNEL = r"""
#define SCRATCH_INTS 8192

__global__ void sum_on_heap(int *sums, int *failures)
{
    int t = threadIdx.x;
    int sum = 0;
    int *scratch = (int *)malloc(SCRATCH_INTS * sizeof(int));
    if (scratch == NULL)
        atomicAdd(failures, 1);
    else
        for (int j = 0; j < SCRATCH_INTS; j++)
            scratch[j] = t;
    __syncthreads();
    if (scratch == NULL) {
        sums[t] = -1;
        return;
    }
    for (int j = 0; j < SCRATCH_INTS; j++)
        sum += scratch[j];
    free(scratch);
    sums[t] = sum;
}
"""


def run():
    # A marker: -1 was never copied back.
    host = np.full(THREADS, -1, dtype=np.int32)
    want = np.arange(THREADS, dtype=np.int32) * SCRATCH_INTS
    failed = np.zeros(1, dtype=np.int32)
    # FIX: the heap gets its size when the first module that uses malloc() is
    # loaded, and keeps it: set the limit before SourceModule loads this one.
    cuda.Context.set_limit(cuda.limit.MALLOC_HEAP_SIZE, HEAP_MIB << 20)
    print("%d threads, each malloc(%d) in the kernel: %d MiB in all"
          % (THREADS, SCRATCH_INTS * 4, (THREADS * SCRATCH_INTS * 4) >> 20))
    module = SourceModule(KERNEL)
    sum_on_heap = module.get_function("sum_on_heap")

    sums = cuda.mem_alloc(host.nbytes)
    failures = cuda.mem_alloc(failed.nbytes)
    cuda.memset_d32(failures, 0, 1)
    sum_on_heap(sums, failures, block=(THREADS, 1, 1), grid=(1, 1))
    cuda.memcpy_dtoh(host, sums)
    cuda.memcpy_dtoh(failed, failures)
    print("malloc() calls that returned NULL: %d" % failed[0])
    failures.free()
    sums.free()
    wrong = clinic.check_ints("sums", host, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
