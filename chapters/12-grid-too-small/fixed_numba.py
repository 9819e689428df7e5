"""fixed_numba.py -- Chapter 12, Numba twin of fixed.cu: the number of blocks
is rounded up, so every element has a thread; the kernel's bounds check
stops the spare threads of the last block."""
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
    # FIX: round up. (1000 + 255) // 256 is 4 blocks, 1024 threads; the
    # kernel's bounds check stops the 24 spare ones.
    blocks = (N + BLOCK - 1) // BLOCK

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
