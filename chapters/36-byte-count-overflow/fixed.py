"""fixed.py -- Chapter 36, PyCUDA twin of fixed.cu: the size read from the
header as a NumPy uint32 is made a Python int before it is multiplied, so
the byte count holds 4097 MiB and every MiB of the data fits."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda

MIB = 1 << 20  # bytes in a MiB: a Python int
MIB_INTS = MIB // 4
# A file header as it arrives from disk: the buffer's size in MiB, stored
# as a little-endian 32-bit unsigned integer. 4097 MiB is 4 GiB + 1 MiB.
HEADER = (4097).to_bytes(4, "little")


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
    sizes = np.frombuffer(HEADER, dtype="<u4")  # a uint32 array of one
    mib = int(sizes[0])
    # FIX: multiply Python ints, which do not wrap: the first factor is
    # mib, int(sizes[0]), not the uint32 array.
    nbytes = mib * MIB
    buf = malloc_or_skip(nbytes)
    print("buffer: %d MiB, %d bytes allocated" % (mib, nbytes))
    chunk = cuda.pagelocked_empty(MIB_INTS, np.int32)  # one MiB at a time

    # Upload the data a MiB at a time: MiB k holds the value k.
    for k in range(mib):
        chunk[:] = k
        cuda.memcpy_htod(int(buf) + k * MIB, chunk)
    # Read the last MiB back: it must hold mib - 1 everywhere.
    last = np.empty(MIB_INTS, dtype=np.int32)
    cuda.memcpy_dtoh(last, int(buf) + (mib - 1) * MIB)
    want = np.full(MIB_INTS, mib - 1, dtype=np.int32)
    wrong = clinic.check_ints("last MiB", last, want)

    buf.free()
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
