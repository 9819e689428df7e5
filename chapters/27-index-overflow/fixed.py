"""fixed.py -- Chapter 27, PyCUDA twin of fixed.cu: the kernel over a byte
array of 2 GiB + 1 MiB computes its index in 64 bits, so every thread writes
its own byte, the last MiB included."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

BLOCK = 256  # threads per block
MIB = 1 << 20
N = (1 << 31) + MIB  # bytes: 2 GiB + 1 MiB
INT_MAX = 2**31 - 1

KERNEL = """
__global__ void fill(unsigned char *out, long long n)
{
    // FIX: the product in 64 bits: the index of every thread fits, up to
    // 2^31 + 2^20 - 1 here, and never turns negative.
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (unsigned char)i;
}
"""


def malloc_or_skip(nbytes):
    """mem_alloc, or a skip when the GPU has too little free memory."""
    free_bytes = cuda.mem_get_info()[0]
    if free_bytes >= nbytes:
        try:
            return cuda.mem_alloc(nbytes)
        except cuda.MemoryError:
            pass
    clinic.skip("not enough free GPU memory: this chapter needs %d MiB, "
                "the GPU has %d MiB free" % (nbytes // MIB, free_bytes // MIB))


def run():
    fill = SourceModule(KERNEL).get_function("fill")
    # The 2 MiB that straddle byte 2^31: the last MiB an int can index and
    # the first MiB it cannot.
    first = N - 2 * MIB
    blocks = N // BLOCK  # N is a multiple of BLOCK
    dev = malloc_or_skip(N)
    window = np.empty(2 * MIB, dtype=np.uint8)
    print("array: %d bytes (2 GiB + 1 MiB), one thread per byte" % N)
    print("grid: %d blocks of %d threads" % (blocks, BLOCK))
    print("indices 0 to %d; an int holds at most %d" % (N - 1, INT_MAX))

    fill(dev, np.int64(N), block=(BLOCK, 1, 1), grid=(blocks, 1))
    cuda.memcpy_dtoh(window, int(dev) + first)
    dev.free()

    want = (np.arange(first, N) & 0xFF).astype(np.uint8)
    bad = np.flatnonzero(window != want)
    line = "bytes %d to %d: %d of %d wrong" % (first, N - 1, bad.size,
                                               2 * MIB)
    if bad.size:
        line += ", first at [%d]" % (first + int(bad[0]))
    print(line)
    return clinic.EXIT_WRONG_RESULT if bad.size else clinic.EXIT_OK


sys.exit(clinic.main(run))
