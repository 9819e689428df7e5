"""broken_numba.py -- Chapter 23, Numba twin of broken.cu: one block counts
values into a histogram in shared memory with a plain += where
cuda.atomic.add() is needed, and copies the bins out with no
cuda.syncthreads() after the counting."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_numba_or_skip()

import numpy as np
from numba import cuda, int32
from clinic_numba import gpu_wait_ns

N = 256                # values: one per thread of a single block
BINS = 8               # the values run from 0 to BINS - 1
WARP = 32              # threads per warp
LATE_NS = 100_000_000  # 100 ms: how much later warps 1 to 7 count


@cuda.jit
def histogram(values, counts):
    """Counts values[0..N-1] into counts[0..BINS-1]: one block of N
    threads."""
    bins = cuda.shared.array(BINS, int32)
    t = cuda.threadIdx.x

    if t < BINS:
        bins[t] = 0
    cuda.syncthreads()  # every bin is 0 before any thread counts

    # Warps 1 to 7 count 100 ms after warp 0, as if their work took
    # longer. It makes the race below come out the same way every run.
    if t >= WARP:
        gpu_wait_ns(LATE_NS)
    # BUG: += is a load, an add and a store. The 32 threads of a warp
    # that share a bin all load the same old count, add 1 and store the
    # same new count, so 32 increments leave 1.
    bins[values[t]] += 1
    # BUG: no barrier: warp 0 copies the bins out as soon as it has
    # counted, while warps 1 to 7 have not counted yet.
    if t < BINS:
        counts[t] = bins[t]


def values_line(what, values):
    return "%s: %s" % (what, " ".join(str(v) for v in values))


def run():
    # sorted: 32 zeros, 32 ones, ...
    values = (np.arange(N) // (N // BINS)).astype(np.int32)
    want = np.full(BINS, N // BINS, dtype=np.int32)

    dev_values = cuda.to_device(values)
    dev_counts = cuda.device_array(BINS, dtype=np.int32)
    print("%d values, sorted: %d of each value from 0 to %d"
          % (N, N // BINS, BINS - 1))
    print("one block of %d threads (%d warps) counts them in shared memory"
          % (N, N // WARP))
    histogram[1, N](dev_values, dev_counts)
    counts = dev_counts.copy_to_host()

    print(values_line("counts", counts))
    print("total: %d of %d values counted" % (int(counts.sum()), N))
    if clinic.check_ints("counts", counts, want):
        return clinic.EXIT_WRONG_RESULT
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
