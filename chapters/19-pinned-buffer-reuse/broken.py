"""broken.py -- Chapter 19, PyCUDA twin of broken.cu: the host refills a
page-locked staging array while the memcpy_htod_async that reads it is still
queued. Two arrays, used in turn, are not enough: batches 0 and 1 arrive
holding batches 2 and 3."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

BATCHES = 4
N = 1 << 18  # ints per batch: 1 MiB

# Waits 100 ms on the GPU's clock: far longer than it takes to fill every
# batch. It stands for the work still running on the stream when the copies
# are queued behind it.
KERNEL_SOURCE = r"""
#include "clinic_wait.cuh"

__global__ void busy_wait(void)
{
    clinic_gpu_wait_ns(100000000ull);
}
"""


def batch(b):
    """Batch b holds the numbers b * N to b * N + N - 1: every batch
    differs."""
    return np.arange(b * N, (b + 1) * N, dtype=np.int32)


def run():
    module = SourceModule(KERNEL_SOURCE, include_dirs=[clinic.COMMON])
    busy_wait = module.get_function("busy_wait")
    staging = [cuda.pagelocked_empty(N, np.int32) for _ in range(2)]
    # copied[k]: the last copy from staging[k] has run.
    copied = [cuda.Event(), cuda.Event()]
    dev = cuda.mem_alloc(BATCHES * N * 4)
    s = cuda.Stream()

    # Queued first: the copies wait behind it.
    busy_wait(block=(1, 1, 1), grid=(1, 1), stream=s)
    for b in range(BATCHES):
        k = b % 2  # fill one array while the other's copy waits
        # BUG: a copy reads its array only when its turn on the stream comes.
        # The copy that last read staging[k] has not run yet, and refilling
        # staging[k] now replaces the data it is still waiting to read.
        staging[k][:] = batch(b)  # in place: staging[k] stays page-locked
        cuda.memcpy_htod_async(int(dev) + b * N * 4, staging[k], s)
        copied[k].record(s)
    for k in range(2):  # the last copies ran: staging may be freed
        copied[k].synchronize()

    result = np.empty(BATCHES * N, dtype=np.int32)
    cuda.memcpy_dtoh(result, dev)
    dev.free()
    wrong = 0
    for b in range(BATCHES):
        wrong += clinic.check_ints("batch %d" % b,
                                   result[b * N:(b + 1) * N], batch(b))
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
