"""broken_numba.py -- Chapter 13, Numba twin of broken.cu: the grid is
rounded up but the kernel has no bounds check, so the spare threads of the
last block write past the end of array a: over array b, which follows a in
the same allocation, and then past the end of the allocation."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_numba_or_skip()

import numpy as np
from numba import cuda

N_A = 1000   # elements of a: not a multiple of BLOCK
N_B = 8      # elements of b, stored right after a
BLOCK = 256  # threads per block


@cuda.jit
def squares(out):
    """Writes out[i] = i * i, meant for every i < out.size."""
    i = cuda.grid(1)
    # BUG: no `if i < out.size`. The grid has 1024 threads for 1000
    # elements, so threads 1000 to 1023 write out[1000] to out[1023]: past
    # the end of a. A Numba kernel does not check its indices.
    out[i] = i * i


def values_line(what, values):
    return "%s: %s" % (what, " ".join(str(v) for v in values))


def run():
    want_a = np.arange(N_A, dtype=np.int32) ** 2
    want_b = np.arange(1, N_B + 1, dtype=np.int32)  # nothing should change b
    blocks = (N_A + BLOCK - 1) // BLOCK  # rounded up: 4 blocks

    # One allocation carved into two arrays, as memory pools and packed
    # buffers do: a is a view of its first N_A ints, b of the N_B after.
    base = cuda.device_array(N_A + N_B, dtype=np.int32)
    dev_a = base[:N_A]
    dev_b = base[N_A:]
    dev_b.copy_to_device(want_b)

    print("one allocation of %d ints: a is the first %d, b the last %d"
          % (N_A + N_B, N_A, N_B))
    print("grid: %d blocks of %d threads = %d threads for the %d elements "
          "of a" % (blocks, BLOCK, blocks * BLOCK, N_A))
    print(values_line("b before the kernel", want_b))
    squares[blocks, BLOCK](dev_a)
    a = dev_a.copy_to_host()
    b = dev_b.copy_to_host()
    print(values_line("b after the kernel", b))

    # a is checked first: it is the array everyone looks at.
    wrong = clinic.check_ints("a", a, want_a)
    wrong += clinic.check_ints("b", b, want_b)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
