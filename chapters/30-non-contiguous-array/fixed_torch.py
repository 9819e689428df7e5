"""fixed_torch.py -- Chapter 30, PyTorch twin of fixed.cu: the transpose
is copied into a dense, row-major tensor with .contiguous(), which is kept
until the kernel's results are back, so the kernel reads the transpose."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_torch_or_skip()
clinic.require_cupy_or_skip()  # the raw kernel is a CuPy RawKernel

import cupy as cp
import numpy as np
import torch

ROWS = 4  # rows of the matrix: columns of its transpose
COLS = 6  # columns of the matrix: rows of its transpose

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
    matrix = torch.from_numpy((10 * r + c).astype(np.int32)).to("cuda")
    want = matrix.t().sum(dim=1).cpu().numpy()  # PyTorch's own op: right
    print("a %d x %d matrix of ints, element [r][c] = 10 * r + c; the kernel "
          "sums the rows of its transpose, m.t()" % (ROWS, COLS))

    # FIX: data_ptr() is only an address: give the kernel a dense,
    # row-major copy, kept (the name block) until the results are back.
    block = matrix.t().contiguous()

    sums = torch.empty(COLS, dtype=torch.int32, device="cuda")
    with cp.cuda.Stream.from_external(torch.cuda.current_stream()):
        row_sums((1,), (COLS,), (block.data_ptr(), np.int32(COLS),
                                 np.int32(ROWS), sums.data_ptr()))
    # What the kernel read: COLS * ROWS ints from the address it was given.
    seen = block.as_strided((COLS, ROWS), (ROWS, 1)).cpu()

    print("m.t() as the kernel reads it:")
    for row in range(COLS):
        print("row %d: %s" % (row, " ".join(str(int(v)) for v in seen[row])))
    sums = sums.cpu().numpy()  # copies after the kernel, in its stream
    print("row sums: %s" % " ".join(str(v) for v in sums))
    wrong = clinic.check_ints("sums", sums, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
