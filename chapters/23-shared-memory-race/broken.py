"""broken.py -- Chapter 23, PyCUDA twin of broken.cu: one block counts
values into a histogram in shared memory with a plain += where atomicAdd()
is needed, and copies the bins out with no __syncthreads() after the
counting."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 256   # values: one per thread of a single block
BINS = 8  # the values run from 0 to BINS - 1
WARP = 32  # threads per warp

KERNEL = """
#include "clinic_wait.cuh"

#define BINS 8
#define WARP 32
#define LATE_NS 100000000ull /* 100 ms: how much later warps 1 to 7 count */

__global__ void histogram(const int *values, int *counts)
{
    __shared__ int bins[BINS];
    int t = threadIdx.x;

    if (t < BINS)
        bins[t] = 0;
    __syncthreads(); /* every bin is 0 before any thread counts */

    /* Warps 1 to 7 count 100 ms after warp 0, as if their work took
       longer. It makes the race below come out the same way every run. */
    if (t >= WARP)
        clinic_gpu_wait_ns(LATE_NS);
    /* BUG: += is a load, an add and a store. The 32 threads of a warp
       that share a bin all load the same old count, add 1 and store the
       same new count, so 32 increments leave 1. */
    bins[values[t]] += 1;
    /* BUG: no barrier: warp 0 copies the bins out as soon as it has
       counted, while warps 1 to 7 have not counted yet. */
    if (t < BINS)
        counts[t] = bins[t];
}
"""


def values_line(what, array):
    return "%s: %s" % (what, " ".join(str(int(v)) for v in array))


def run():
    module = SourceModule(KERNEL, include_dirs=[clinic.COMMON])
    histogram = module.get_function("histogram")
    # sorted: 32 zeros, 32 ones, ...
    values = (np.arange(N, dtype=np.int32) // (N // BINS)).astype(np.int32)
    want = np.full(BINS, N // BINS, dtype=np.int32)
    counts = np.empty(BINS, dtype=np.int32)

    dev_values = cuda.mem_alloc(values.nbytes)
    dev_counts = cuda.mem_alloc(counts.nbytes)
    cuda.memcpy_htod(dev_values, values)
    print("%d values, sorted: %d of each value from 0 to %d"
          % (N, N // BINS, BINS - 1))
    print("one block of %d threads (%d warps) counts them in shared memory"
          % (N, N // WARP))
    histogram(dev_values, dev_counts, block=(N, 1, 1), grid=(1, 1))
    cuda.memcpy_dtoh(counts, dev_counts)
    dev_counts.free()
    dev_values.free()

    print(values_line("counts", counts))
    print("total: %d of %d values counted" % (int(counts.sum()), N))
    if clinic.check_ints("counts", counts, want):
        return clinic.EXIT_WRONG_RESULT
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
