"""broken_numba.py -- Chapter 24, Numba twin of broken.cu: the batches count
their values into an array from cuda.device_array(), which is never
cleared, so each batch's counts start from whatever that memory held (here,
after the first batch, the counts of the batch before)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_numba_or_skip()

import numpy as np
from numba import cuda

N = 256      # values per batch
BINS = 8     # the values run from 0 to BINS - 1
BATCHES = 3  # each batch counts the same N values


@cuda.jit
def histogram(values, counts):
    """Adds 1 to counts[values[i]] for every i < values.size."""
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(counts, values[i], 1)


def values_line(what, values):
    return "%s: %s" % (what, " ".join(str(v) for v in values))


def run():
    values = (np.arange(N) % BINS).astype(np.int32)
    want = np.full(BINS, N // BINS, dtype=np.int32)
    dev_values = cuda.to_device(values)
    # One array for the counts, allocated once: Numba frees a dropped array
    # only later (its queue of pending deallocations), so with a new one per
    # batch each batch would get other memory until the queue is flushed.
    dev_counts = cuda.device_array(BINS, dtype=np.int32)
    print("%d batches of %d values, %d of each value from 0 to %d"
          % (BATCHES, N, N // BINS, BINS - 1))

    wrong = 0
    for batch in range(1, BATCHES + 1):
        # BUG: cuda.device_array() is numpy.empty on the GPU: nothing clears
        # the counts, so they start from whatever the memory held, not 0.
        histogram[1, N](dev_values, dev_counts)
        counts = dev_counts.copy_to_host()

        print(values_line("batch %d counts" % batch, counts))
        wrong += clinic.check_ints("batch %d" % batch, counts, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
