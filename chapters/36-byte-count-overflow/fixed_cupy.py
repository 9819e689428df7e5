"""fixed_cupy.py -- Chapter 36, CuPy twin of fixed.cu: the size read from
the header as a NumPy uint32 is made a Python int before it is multiplied,
so the byte count holds 4097 MiB and the kernel fills all of it."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_cupy_or_skip()

import cupy as cp
import numpy as np

MIB = 1 << 20  # bytes in a MiB: a Python int
MIB_INTS = MIB // 4
# A file header as it arrives from disk: the buffer's size in MiB, stored
# as a little-endian 32-bit unsigned integer. 4097 MiB is 4 GiB + 1 MiB.
HEADER = (4097).to_bytes(4, "little")

KERNEL = r"""
#define MIB_INTS 262144 /* ints in a MiB */

/* Block b fills MiB b of the buffer with the value b: 1024 threads, 256
   ints each. The offsets are 64-bit: the kernel is right. */
extern "C" __global__ void fill(int *buf)
{
    size_t first = (size_t)blockIdx.x * MIB_INTS + threadIdx.x;

    for (int k = 0; k < MIB_INTS / 1024; k++)
        buf[first + (size_t)k * 1024] = (int)blockIdx.x;
}
"""


def empty_or_skip(count):
    """cp.empty(count, int32), or a skip when the GPU has too little free
    memory for it."""
    free_bytes = cp.cuda.runtime.memGetInfo()[0]
    if free_bytes >= count * 4:
        try:
            return cp.empty(count, dtype=cp.int32)
        except cp.cuda.memory.OutOfMemoryError:
            pass
    clinic.skip("not enough free GPU memory: this chapter needs %d MiB, "
                "the GPU has %d MiB free" % (count * 4 // MIB,
                                             free_bytes // MIB))


def run():
    fill = cp.RawKernel(KERNEL, "fill")
    sizes = np.frombuffer(HEADER, dtype="<u4")  # a uint32 array of one
    mib = int(sizes[0])
    # FIX: multiply Python ints, which do not wrap: the first factor is
    # mib, int(sizes[0]), not the uint32 array.
    nbytes = mib * MIB
    buf = empty_or_skip(nbytes // 4)
    print("buffer: %d MiB, %d bytes allocated" % (mib, nbytes))

    fill((mib,), (1024,), (buf,))
    # The last MiB of the buffer, where block mib - 1 wrote.
    last = buf[(nbytes - MIB) // 4:].get()
    want = np.full(MIB_INTS, mib - 1, dtype=np.int32)
    wrong = clinic.check_ints("last MiB", last, want)

    del buf
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
