"""fixed.py -- Chapter 27, PyCUDA twin of fixed.cu: the kernel over a byte
array of 2 GiB + 64 KiB computes each thread's byte offset in 64 bits, so
every thread writes its own bytes, the last 64 KiB included."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

BLOCK = 1024  # threads per block
CHUNK = 64  # bytes per thread
MIB = 1 << 20
TAIL = 64 << 10  # 64 KiB
N = (1 << 31) + TAIL  # bytes: 2 GiB + 64 KiB
INT_MAX = 2**31 - 1

KERNEL = """
__global__ void fill(unsigned char *out, long long n)
{
    // FIX: the multiply in 64 bits: every offset fits, up to 2^31 here,
    // and none turns negative.
    long long offset =
        (long long)(blockIdx.x * blockDim.x + threadIdx.x) * CHUNK;
    if (offset < n)
        for (int k = 0; k < CHUNK; k++)
            out[offset + k] = (unsigned char)(offset + k);
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
                "the GPU has %d MiB free" % ((nbytes + MIB - 1) // MIB,
                                             free_bytes // MIB))


def run():
    fill = SourceModule(KERNEL, options=["-DCHUNK=%d" % CHUNK]).get_function(
        "fill")
    # The 128 KiB that straddle byte 2^31: the last 64 KiB an int can index
    # and the 64 KiB after them, which it cannot.
    first = N - 2 * TAIL
    blocks = N // (BLOCK * CHUNK)  # exact
    dev = malloc_or_skip(N)
    window = np.empty(2 * TAIL, dtype=np.uint8)
    print("array: %d bytes (2 GiB + 64 KiB), %d bytes a thread" % (N, CHUNK))
    print("grid: %d blocks of %d threads" % (blocks, BLOCK))
    print("offsets 0 to %d; an int holds at most %d" % (N - CHUNK, INT_MAX))

    fill(dev, np.int64(N), block=(BLOCK, 1, 1), grid=(blocks, 1))
    cuda.memcpy_dtoh(window, int(dev) + first)
    dev.free()

    want = (np.arange(first, N) & 0xFF).astype(np.uint8)
    bad = np.flatnonzero(window != want)
    line = "bytes %d to %d: %d of %d wrong" % (first, N - 1, bad.size,
                                               2 * TAIL)
    if bad.size:
        line += ", first at [%d]" % (first + int(bad[0]))
    print(line)
    return clinic.EXIT_WRONG_RESULT if bad.size else clinic.EXIT_OK


sys.exit(clinic.main(run))
