"""broken_numba.py -- Chapter 15, Numba twin of broken.cu: the grid's x runs
over the columns of the result, as in the C programs, but the kernel takes
its row from x (`row, col = cuda.grid(2)`), so a square product comes out
right and a rectangular one does not."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_numba_or_skip()

import numpy as np
from numba import cuda

BLOCK = (16, 16)  # threads per block, x then y
MARKER = -1       # what every element of C starts as; no product is -1


@cuda.jit
def matmul(a, b, c):
    """One thread per element of C: C[row, col] = sum over i of
    A[row, i] * B[i, col]. The grid's x runs over the columns of C."""
    # BUG: cuda.grid(2) returns (x, y), x first, and x runs over the
    # columns: this takes the column index as the row. For a square C the
    # grid covers both ways round and every element is still computed.
    row, col = cuda.grid(2)
    if row < c.shape[0] and col < c.shape[1]:
        total = 0
        for i in range(a.shape[1]):
            total += a[row, i] * b[i, col]
        c[row, col] = total


def multiply(name, m, k, n):
    """Multiplies an m x k matrix A by a k x n matrix B on the GPU, compares the
    m x n result with NumPy's, prints one line and returns the wrong count."""
    a = (np.arange(m * k) % 7 + 1).astype(np.int32).reshape(m, k)
    b = (np.arange(k * n) % 5 + 1).astype(np.int32).reshape(k, n)
    want = a @ b
    dev_c = cuda.to_device(np.full((m, n), MARKER, dtype=np.int32))
    # x: the n columns of C, y: its m rows
    grid = ((n + BLOCK[0] - 1) // BLOCK[0], (m + BLOCK[1] - 1) // BLOCK[1])
    matmul[grid, BLOCK](cuda.to_device(a), cuda.to_device(b), dev_c)
    c = dev_c.copy_to_host()
    what = "%s, %dx%d times %dx%d" % (name, m, k, k, n)
    return clinic.check_ints(what, c, want)


def run():
    wrong = multiply("square", 4, 4, 4)
    wrong += multiply("rectangular", 3, 5, 40)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
