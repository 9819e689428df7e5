"""fixed.py -- Chapter 19, PyCUDA twin of fixed.cu: two page-locked staging
arrays, and an event recorded after each copy that the host waits for before
it refills that array, so every batch on the device holds its own data."""
import sys

import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np  # noqa: E402
import pycuda.autoinit  # noqa: E402,F401  (the context, as users create it)
import pycuda.driver as cuda  # noqa: E402
from pycuda.compiler import SourceModule  # noqa: E402

BATCHES = 4
N = 1 << 18  # ints per batch: 1 MiB

# Busy-waits 100 ms on the GPU's nanosecond clock: far longer than it takes to
# fill every batch. It stands for the work still running on the stream when
# the copies are queued behind it.
KERNEL_SOURCE = r"""
__global__ void busy_wait(void)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < 100000000ull);
}
"""


def batch(b):
    """Batch b holds the numbers b * N to b * N + N - 1, so every batch differs."""
    return np.arange(b * N, (b + 1) * N, dtype=np.int32)


def run():
    busy_wait = SourceModule(KERNEL_SOURCE).get_function("busy_wait")
    staging = [cuda.pagelocked_empty(N, np.int32) for _ in range(2)]
    copied = [cuda.Event(), cuda.Event()]  # copied[k]: the last copy from staging[k] ran
    dev = cuda.mem_alloc(BATCHES * N * 4)
    s = cuda.Stream()

    busy_wait(block=(1, 1, 1), grid=(1, 1), stream=s)  # queued first: the copies wait
    for b in range(BATCHES):
        k = b % 2
        # FIX: a copy reads its array only when its turn on the stream comes.
        # Before refilling staging[k], wait until the copy that last read it
        # has run; meanwhile the other array's copy can stay queued.
        if b >= 2:
            copied[k].synchronize()
        staging[k][:] = batch(b)  # in place: staging[k] stays page-locked
        cuda.memcpy_htod_async(int(dev) + b * N * 4, staging[k], s)
        copied[k].record(s)
    s.synchronize()

    result = np.empty(BATCHES * N, dtype=np.int32)
    cuda.memcpy_dtoh(result, dev)
    dev.free()
    wrong = 0
    for b in range(BATCHES):
        wrong += clinic.check_ints("batch %d" % b, result[b * N:(b + 1) * N], batch(b))
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
