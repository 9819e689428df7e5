"""broken.py -- Chapter 30, PyCUDA twin of broken.cu: a block of columns of a
row-major matrix, a GPUArray view whose rows are not next to each other, is
handed to a kernel that reads it as dense rows, so the kernel reads the
wrong elements."""
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

    # BUG: a view of the matrix on the GPU: its rows are COLS ints apart,
    # and its strides say so, but a kernel gets only the address of its
    # first element.
    dev_matrix = gpuarray.to_gpu(matrix)
    block = dev_matrix[:, FIRST:FIRST + BLOCK]

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
