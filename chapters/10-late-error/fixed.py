"""fixed.py -- Chapter 10, PyCUDA twin of fixed.cu: in debug mode the program
waits for the kernel right after the launch, so the same fault is raised
there. The kernel still faults: on purpose, to show where the error is
reported."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 1000
BAD = 123  # the one entry of the index table that is wrong

KERNEL = """
/* Scatters: out[idx[i]] = i for every i < n. It trusts the table completely. */
__global__ void scatter(int *out, const size_t *idx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[idx[i]] = i;
}
"""


def run():
    scatter = SourceModule(KERNEL).get_function("scatter")
    host = np.empty(N, dtype=np.int32)
    idx = np.arange(N - 1, -1, -1, dtype=np.uint64)  # reverse the order
    # A wild entry, as a corrupt input file might give: 2^60 ints past the
    # buffer, beyond any address the GPU can map, so exactly one thread faults.
    # broken.py and fixed.py share it: the lesson is where the fault is
    # reported.
    idx[BAD] = 1 << 60

    out = cuda.mem_alloc(host.nbytes)
    cuda.memset_d32(out, 0, N)
    dev_idx = cuda.mem_alloc(idx.nbytes)
    cuda.memcpy_htod(dev_idx, idx)
    scatter(out, dev_idx, np.int32(N),
            block=(256, 1, 1), grid=((N + 255) // 256, 1))
    # FIX: debug mode: wait for the kernel right after the launch, so a fault
    # during its run is raised here, by cuCtxSynchronize, instead of by the
    # copy below.
    cuda.Context.synchronize()
    cuda.memcpy_dtoh(host, out)
    dev_idx.free()
    out.free()

    print("scatter: out[0] = %d, out[%d] = %d" % (host[0], N - 1, host[N - 1]))
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
