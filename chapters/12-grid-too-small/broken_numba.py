"""broken_numba.py -- Chapter 12, Numba twin of broken.cu: the number of
blocks is computed with floor division, so the last elements get no thread
and come back untouched."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_numba_or_skip()

import numpy as np
from numba import cuda

N = 1000     # not a multiple of BLOCK: the last block is a partial one
BLOCK = 256  # threads per block
MARKER = -1  # what every element starts as; no thread writes it


@cuda.jit
def squares(out):
    """Writes out[i] = i * i for every i < out.size that has a thread."""
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i * i


def run():
    want = np.arange(N, dtype=np.int32) ** 2
    # BUG: floor division rounds down. 1000 // 256 is 3 blocks, 768 threads,
    # so elements 768 to 999 have no thread at all.
    blocks = N // BLOCK

    # Every element -1: anything still -1 afterwards was never written by
    # the kernel.
    dev = cuda.to_device(np.full(N, MARKER, dtype=np.int32))
    print("grid: %d blocks of %d threads = %d threads for %d elements"
          % (blocks, BLOCK, blocks * BLOCK, N))
    squares[blocks, BLOCK](dev)
    host = dev.copy_to_host()  # waits for the kernel (the default stream)

    print("untouched: %d of %d elements still hold the marker %d"
          % (np.count_nonzero(host == MARKER), N, MARKER))
    if clinic.check_ints("squares", host, want):
        return clinic.EXIT_WRONG_RESULT
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
