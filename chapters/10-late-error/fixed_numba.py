"""fixed_numba.py -- Chapter 10, Numba twin of fixed.cu: in debug mode the
program waits for the kernel right after the launch, so the same fault is
raised there. The kernel still faults: on purpose, to show where the error
is reported."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_numba_or_skip()

import numpy as np
from numba import cuda

N = 1000
BAD = 123  # the one entry of the index table that is wrong


@cuda.jit
def scatter(out, idx):
    """Scatters: out[idx[i]] = i for every i < idx.size. It trusts the
    table completely."""
    i = cuda.grid(1)
    if i < idx.size:
        out[idx[i]] = i


def run():
    idx = np.arange(N - 1, -1, -1, dtype=np.uint64)  # reverse the order
    # A wild entry, as a corrupt input file might give: 2^60 ints past the
    # array, beyond any address the GPU can map, so exactly one thread
    # faults. Both programs share it: the lesson is where the fault is
    # reported.
    idx[BAD] = 1 << 60

    out = cuda.to_device(np.zeros(N, dtype=np.int32))
    dev_idx = cuda.to_device(idx)
    scatter[(N + 255) // 256, 256](out, dev_idx)
    # FIX: debug mode: wait for the kernel right after the launch, so a fault
    # during its run is raised here, by cuda.synchronize() (the driver's
    # cuCtxSynchronize), instead of by the copy below.
    cuda.synchronize()
    host = out.copy_to_host()

    print("scatter: out[0] = %d, out[%d] = %d" % (host[0], N - 1, host[N - 1]))
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
