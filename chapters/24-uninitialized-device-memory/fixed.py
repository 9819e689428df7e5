"""fixed.py -- Chapter 24, PyCUDA twin of fixed.cu: each batch counts its
values into a new gpuarray.zeros() array, which is cleared before use, so
every batch's counts start from 0."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

N = 256     # values per batch
BINS = 8    # the values run from 0 to BINS - 1
BATCHES = 3  # each batch counts the same N values

KERNEL = """
/* Adds 1 to counts[values[i]] for every i < n. */
__global__ void histogram(const int *values, int n, int *counts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&counts[values[i]], 1);
}
"""


def values_line(what, array):
    return "%s: %s" % (what, " ".join(str(int(v)) for v in array))


def run():
    histogram = SourceModule(KERNEL).get_function("histogram")
    values = np.arange(N, dtype=np.int32) % BINS
    want = np.full(BINS, N // BINS, dtype=np.int32)
    dev_values = gpuarray.to_gpu(values)
    wrong = 0
    print("%d batches of %d values, %d of each value from 0 to %d"
          % (BATCHES, N, N // BINS, BINS - 1))

    for batch in range(1, BATCHES + 1):
        # FIX: gpuarray.empty(), like cudaMalloc(), does not clear the
        # memory it returns; gpuarray.zeros() sets every element to 0.
        dev_counts = gpuarray.zeros(BINS, dtype=np.int32)
        histogram(dev_values.gpudata, np.int32(N), dev_counts.gpudata,
                  block=(N, 1, 1), grid=(1, 1))
        counts = dev_counts.get()
        # Freed at the end of the batch, as cudaFree() does in broken.cu
        # (Python would free it only once the name is bound to the next).
        dev_counts.gpudata.free()

        print(values_line("batch %d counts" % batch, counts))
        wrong += clinic.check_ints("batch %d" % batch, counts, want)
    dev_values.gpudata.free()
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
