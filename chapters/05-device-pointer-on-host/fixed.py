"""fixed.py -- Chapter 05, PyCUDA twin of fixed.cu: the results are copied back
with memcpy_dtoh() and the host reads its own copy, so the read succeeds and
the value is right."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 256

KERNEL = """
/* Writes out[i] = i * i for every i < n. */
__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
}
"""


def run():
    squares = SourceModule(KERNEL).get_function("squares")
    host = np.full(N, -1, dtype=np.int32)  # a marker for "never copied back"
    dev = cuda.mem_alloc(host.nbytes)

    squares(dev, np.int32(N), block=(N, 1, 1), grid=(1, 1))
    # FIX: the host reads host memory: copy the results back, then read the
    # copy. memcpy_dtoh() waits for the kernel, so the copy holds its results.
    cuda.memcpy_dtoh(host, dev)
    results = host
    # stdout is flushed before the read, so that a crash does not lose it.
    print("reading results[3] on the host:", end="", flush=True)
    value = int(results[3])
    print(" got %d, expected %d" % (value, 3 * 3))

    dev.free()
    if value != 3 * 3:
        return clinic.EXIT_WRONG_RESULT
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
