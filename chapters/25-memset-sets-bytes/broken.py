"""broken.py -- Chapter 25, PyCUDA twin of broken.cu: memset_d8 is asked to
make every int 1 and every float -1.0, but it writes one byte value into
every byte, so the ints come back as 16843009 and the floats as NaN."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda

N = 4  # elements in each buffer


def float_text(value):
    """%g, or NaN, as broken.cu prints it."""
    return "NaN" if np.isnan(value) else "%g" % value


def bytes_line(what, element):
    """The bytes of one element in memory order (lowest address first)."""
    return "%s: %s" % (what, " ".join("%02x" % b for b in element.tobytes()))


def check_floats(what, got, want):
    """check_ints() for floats, as in broken.cu."""
    wrong = np.flatnonzero(~(got == want))  # a NaN equals nothing
    if wrong.size == 0:
        print("%s: 0 of %d elements wrong" % (what, got.size))
    else:
        i = int(wrong[0])
        print("%s: %d of %d elements wrong, first at [%d]: got %s, "
              "expected %g" % (what, wrong.size, got.size, i,
                               float_text(got[i]), want))
    return int(wrong.size)


def run():
    ints = np.empty(N, dtype=np.int32)
    floats = np.empty(N, dtype=np.float32)
    want_ints = np.ones(N, dtype=np.int32)
    dev_ints = cuda.mem_alloc(ints.nbytes)
    dev_floats = cuda.mem_alloc(floats.nbytes)

    # BUG: memset_d8 stores one byte value into every BYTE: each int gets
    # the bytes 01 01 01 01, each float ff ff ff ff. (It takes an unsigned
    # byte, so it refuses -1; 0xff is the byte cudaMemset makes of -1.)
    cuda.memset_d8(dev_ints, 1, ints.nbytes)
    cuda.memset_d8(dev_floats, 0xFF, floats.nbytes)

    cuda.memcpy_dtoh(ints, dev_ints)
    cuda.memcpy_dtoh(floats, dev_floats)
    dev_floats.free()
    dev_ints.free()

    print("ints, each meant to be 1: %s" % " ".join(str(int(v)) for v in ints))
    print(bytes_line("bytes of ints[0]", ints[0]))
    print("floats, each meant to be -1: %s"
          % " ".join(float_text(v) for v in floats))
    print(bytes_line("bytes of floats[0]", floats[0]))
    wrong = clinic.check_ints("ints", ints, want_ints)
    wrong += check_floats("floats", floats, -1.0)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
