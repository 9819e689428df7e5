"""fixed_numba.py -- Chapter 30, Numba twin of fixed.cu: the block of columns
is copied with copy_to_host() into a new host array, and NumPy's assignment
puts its elements into the block of the table, one by one, so nothing
around the block changes."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_numba_or_skip()

import numpy as np
from numba import cuda

ROWS = 4   # rows of the matrix and of the block
COLS = 6   # columns of the matrix
FIRST = 2  # the block is columns FIRST to FIRST + BLOCK - 1
BLOCK = 3  # columns of the block


def run():
    r, c = np.indices((ROWS, COLS))
    matrix = (10 * r + c).astype(np.int32)  # C order: row-major
    dev_matrix = cuda.to_device(matrix)
    table = np.zeros((ROWS, COLS), dtype=np.int32)  # the host's own table
    want = table.copy()
    want[:, FIRST:FIRST + BLOCK] = matrix[:, FIRST:FIRST + BLOCK]
    print("a %d x %d matrix of ints on the GPU, element [r][c] = 10 * r + c;"
          " columns %d to %d go into a table of zeros on the host"
          % (ROWS, COLS, FIRST, FIRST + BLOCK - 1))

    # FIX: copy_to_host() copies one run of bytes, gaps between rows too:
    # copy into a new array, and let NumPy assign the block's elements.
    block = dev_matrix[:, FIRST:FIRST + BLOCK]
    table[:, FIRST:FIRST + BLOCK] = block.copy_to_host()

    print("the table after the copy:")
    for row in range(ROWS):
        print("row %d: %s" % (row, " ".join(str(v) for v in table[row])))
    wrong = clinic.check_ints("table", table, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
