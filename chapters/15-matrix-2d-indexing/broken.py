"""broken.py -- Chapter 15, PyCUDA twin of broken.cu: a matrix product kernel
that knows only two of the three dimensions is right for square matrices and
wrong for rectangular ones."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

KERNEL = r"""
/* One thread per element of C:
   C[row][col] = sum over i of A[row][i] * B[i][col].
   All three matrices are stored row by row. */
__global__ void matmul(const int *a, const int *b, int *c,
                       int m, int n) /* BUG: no k */
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m && col < n) {
        int sum = 0;
        /* BUG: the length of the dot product, and the length of one row of A,
           is the number of columns of A (k), not its number of rows (m). The
           two are equal only when A is square, so only square products work. */
        for (int i = 0; i < m; i++)
            sum += a[row * m + i] * b[i * n + col];
        c[row * n + col] = sum;
    }
}
"""
BLOCK = (16, 16, 1)


def grid_for(m, n):
    """x covers the columns of C, y its rows."""
    return ((n + BLOCK[0] - 1) // BLOCK[0], (m + BLOCK[1] - 1) // BLOCK[1])


def multiply(matmul, name, m, k, n):
    """Multiplies an m x k matrix A by a k x n matrix B on the GPU, compares the
    m x n result with NumPy's, prints one line and returns the wrong count."""
    a = (np.arange(m * k) % 7 + 1).astype(np.int32).reshape(m, k)
    b = (np.arange(k * n) % 5 + 1).astype(np.int32).reshape(k, n)
    want = a @ b
    c = np.empty((m, n), dtype=np.int32)

    dev_a = cuda.mem_alloc(a.nbytes)
    dev_b = cuda.mem_alloc(b.nbytes)
    dev_c = cuda.mem_alloc(c.nbytes)
    cuda.memcpy_htod(dev_a, a)
    cuda.memcpy_htod(dev_b, b)
    matmul(dev_a, dev_b, dev_c, np.int32(m), np.int32(n),
           block=BLOCK, grid=grid_for(m, n))
    cuda.memcpy_dtoh(c, dev_c)

    what = "%s, %dx%d times %dx%d" % (name, m, k, k, n)
    wrong = clinic.check_ints(what, c.ravel(), want.ravel())
    dev_c.free()
    dev_b.free()
    dev_a.free()
    return wrong


def run():
    matmul = SourceModule(KERNEL).get_function("matmul")
    wrong = multiply(matmul, "square", 4, 4, 4)
    wrong += multiply(matmul, "rectangular", 3, 5, 4)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
