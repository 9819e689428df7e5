"""fixed_cupy.py -- Chapter 36, CuPy twin of fixed.cu: the size read from
the header as a NumPy uint32 is made a Python int before it is multiplied,
so the byte count holds 4097 MiB and every MiB of the data fits."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_cupy_or_skip()

import cupy as cp
import cupyx
import numpy as np

MIB = 1 << 20  # bytes in a MiB: a Python int
MIB_INTS = MIB // 4
# A file header as it arrives from disk: the buffer's size in MiB, stored
# as a little-endian 32-bit unsigned integer. 4097 MiB is 4 GiB + 1 MiB.
HEADER = (4097).to_bytes(4, "little")


def alloc_or_skip(nbytes):
    """cp.cuda.alloc(nbytes), or a skip when the GPU has too little free
    memory for it."""
    free_bytes = cp.cuda.runtime.memGetInfo()[0]
    if free_bytes >= nbytes:
        try:
            return cp.cuda.alloc(nbytes)
        except cp.cuda.memory.OutOfMemoryError:
            pass
    clinic.skip("not enough free GPU memory: this chapter needs %d MiB, "
                "the GPU has %d MiB free" % (nbytes // MIB, free_bytes // MIB))


def run():
    sizes = np.frombuffer(HEADER, dtype="<u4")  # a uint32 array of one
    mib = int(sizes[0])
    # FIX: multiply Python ints, which do not wrap: the first factor is
    # mib, int(sizes[0]), not the uint32 array.
    nbytes = mib * MIB
    buf = alloc_or_skip(nbytes)  # device memory, as cudaMalloc gives it
    print("buffer: %d MiB, %d bytes allocated" % (mib, nbytes))
    chunk = cupyx.empty_pinned(MIB_INTS, np.int32)  # one MiB at a time

    # Upload the data a MiB at a time: MiB k holds the value k.
    for k in range(mib):
        chunk[:] = k
        cp.cuda.runtime.memcpy(buf.ptr + k * MIB, chunk.ctypes.data, MIB,
                               cp.cuda.runtime.memcpyHostToDevice)
    # Read the last MiB back: it must hold mib - 1 everywhere.
    last = np.empty(MIB_INTS, dtype=np.int32)
    cp.cuda.runtime.memcpy(last.ctypes.data, buf.ptr + (mib - 1) * MIB, MIB,
                           cp.cuda.runtime.memcpyDeviceToHost)
    want = np.full(MIB_INTS, mib - 1, dtype=np.int32)
    wrong = clinic.check_ints("last MiB", last, want)

    del buf
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
