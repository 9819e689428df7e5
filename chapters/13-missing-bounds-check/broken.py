"""broken.py -- Chapter 13, PyCUDA twin of broken.cu: the grid is rounded up
but the kernel has no bounds check, so the spare threads of the last block
write over array b, which follows a in the same allocation, and then past
the end of the allocation."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N_A = 1000  # elements of a: not a multiple of BLOCK
N_B = 8     # elements of b, stored right after a
BLOCK = 256  # threads per block
INT_BYTES = np.dtype(np.int32).itemsize

KERNEL = """
__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // BUG: no if (i < n). The grid has 1024 threads for 1000 elements, so
    // threads 1000 to 1023 write out[1000] to out[1023]: past the end of a.
    out[i] = i * i;
}
"""


def values(what, array):
    return "%s: %s" % (what, " ".join(str(int(v)) for v in array))


def run():
    squares = SourceModule(KERNEL).get_function("squares")
    want_a = np.arange(N_A, dtype=np.int32) ** 2
    want_b = np.arange(1, N_B + 1, dtype=np.int32)  # nothing should change b
    a = np.empty(N_A, dtype=np.int32)
    b = np.empty(N_B, dtype=np.int32)
    blocks = (N_A + BLOCK - 1) // BLOCK  # rounded up: 4 blocks

    # One allocation carved into two arrays: a is its first N_A ints, b the
    # N_B ints right after. int(base) is the device address; offsets are bytes.
    base = cuda.mem_alloc((N_A + N_B) * INT_BYTES)
    dev_a = base
    dev_b = int(base) + N_A * INT_BYTES
    cuda.memcpy_htod(dev_b, want_b)

    print("one allocation of %d ints: a is the first %d, b the last %d"
          % (N_A + N_B, N_A, N_B))
    print("grid: %d blocks of %d threads = %d threads for the %d elements of a"
          % (blocks, BLOCK, blocks * BLOCK, N_A))
    print(values("b before the kernel", want_b))
    squares(dev_a, np.int32(N_A), block=(BLOCK, 1, 1), grid=(blocks, 1))
    cuda.memcpy_dtoh(a, dev_a)
    cuda.memcpy_dtoh(b, dev_b)
    base.free()
    print(values("b after the kernel", b))

    # a is checked first: it is the array everyone looks at.
    wrong = clinic.check_ints("a", a, want_a)
    wrong += clinic.check_ints("b", b, want_b)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
