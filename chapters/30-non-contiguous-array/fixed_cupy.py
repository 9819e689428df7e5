"""fixed_cupy.py -- Chapter 30, CuPy twin of fixed.cu: the block of columns
is copied into a dense, row-major array with cp.ascontiguousarray, which is
kept until the kernel's results are back, so the kernel reads the block."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_cupy_or_skip()

import cupy as cp
import numpy as np

ROWS = 4   # rows of the matrix and of the block
COLS = 6   # columns of the matrix
FIRST = 2  # the block is columns FIRST to FIRST + BLOCK - 1
BLOCK = 3  # columns of the block

KERNEL = r"""
/* sums[r] = the sum of row r of a dense rows x cols block (row-major, each
   row right after the one before). One thread per row. */
extern "C" __global__
void row_sums(const int *block, int rows, int cols, int *sums)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        int sum = 0;
        for (int c = 0; c < cols; c++)
            sum += block[r * cols + c];
        sums[r] = sum;
    }
}
"""


def run():
    row_sums = cp.RawKernel(KERNEL, "row_sums")
    r, c = np.indices((ROWS, COLS))
    matrix = (10 * r + c).astype(np.int32)  # C order: row-major
    want = matrix[:, FIRST:FIRST + BLOCK].sum(axis=1)
    print("a %d x %d matrix of ints, element [r][c] = 10 * r + c; "
          "the block is columns %d to %d" % (ROWS, COLS, FIRST,
                                             FIRST + BLOCK - 1))

    # FIX: RawKernel passes only an address: give it a dense, row-major
    # copy of the block, kept (the name block) until the results are back.
    dev_matrix = cp.asarray(matrix)
    block = cp.ascontiguousarray(dev_matrix[:, FIRST:FIRST + BLOCK])

    dev_sums = cp.empty(ROWS, dtype=cp.int32)
    row_sums((1,), (ROWS,), (block, np.int32(ROWS), np.int32(BLOCK),
                             dev_sums))
    # What the kernel read: ROWS * BLOCK ints from the address it was given.
    seen = cp.ndarray((ROWS, BLOCK), dtype=cp.int32, memptr=block.data).get()
    sums = dev_sums.get()

    print("the block as the kernel reads it:")
    for row in range(ROWS):
        print("row %d: %s" % (row, " ".join(str(v) for v in seen[row])))
    print("row sums: %s" % " ".join(str(v) for v in sums))
    wrong = clinic.check_ints("sums", sums, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
