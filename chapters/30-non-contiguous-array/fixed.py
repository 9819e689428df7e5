"""fixed.py -- Chapter 30, PyCUDA twin of fixed.cu: the block of columns is
made a dense, row-major array with np.ascontiguousarray before it goes to the
GPU, and that array is kept until the kernel's results are back, so the
kernel reads the block."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

ROWS = 4   # rows of the matrix and of the block
COLS = 6   # columns of the matrix
FIRST = 2  # the block is columns FIRST to FIRST + BLOCK - 1
BLOCK = 3  # columns of the block

KERNEL = """
/* sums[r] = the sum of row r of a dense rows x cols block (row-major, each
   row right after the one before). One thread per row. */
__global__ void row_sums(const int *block, int rows, int cols, int *sums)
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
    row_sums = SourceModule(KERNEL).get_function("row_sums")
    r, c = np.indices((ROWS, COLS))
    matrix = (10 * r + c).astype(np.int32)  # C order: row-major
    want = matrix[:, FIRST:FIRST + BLOCK].sum(axis=1)
    print("a %d x %d matrix of ints, element [r][c] = 10 * r + c; "
          "the block is columns %d to %d" % (ROWS, COLS, FIRST,
                                             FIRST + BLOCK - 1))

    # FIX: a kernel gets only an address: give it a dense, row-major copy
    # of the block, and keep it (the name block) until the results are back.
    block = gpuarray.to_gpu(
        np.ascontiguousarray(matrix[:, FIRST:FIRST + BLOCK]))

    dev_sums = gpuarray.empty(ROWS, dtype=np.int32)
    row_sums(block, np.int32(ROWS), np.int32(BLOCK), dev_sums,
             block=(ROWS, 1, 1), grid=(1, 1))
    # What the kernel read: ROWS * BLOCK ints from the address it was given.
    seen = np.empty((ROWS, BLOCK), dtype=np.int32)
    cuda.memcpy_dtoh(seen, block.ptr)
    sums = dev_sums.get()

    print("the block as the kernel reads it:")
    for row in range(ROWS):
        print("row %d: %s" % (row, " ".join(str(v) for v in seen[row])))
    print("row sums: %s" % " ".join(str(v) for v in sums))
    wrong = clinic.check_ints("sums", sums, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
