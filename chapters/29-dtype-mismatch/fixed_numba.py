"""fixed_numba.py -- Chapter 29, Numba twin of fixed.cu: the float64 array is
converted with astype(np.float32) before it goes to the device, so it has
the type of the kernel's explicit signature
`void(float32, float32[:], float32[:])`."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_numba_or_skip()

import numpy as np
from numba import cuda

N = 8         # values
FACTOR = 2.0  # a Python float


@cuda.jit("void(float32, float32[:], float32[:])")
def scale(factor, values, out):
    """out[i] = factor * values[i] for every i < out.size."""
    i = cuda.grid(1)
    if i < out.size:
        out[i] = factor * values[i]


def floats_line(what, values):
    return "%s: %s" % (what, " ".join("%g" % v for v in values))


def check_floats(what, got, want):
    """check_floats() of the C programs: prints one line, returns the count."""
    wrong = np.flatnonzero(got != want)
    if wrong.size == 0:
        print("%s: 0 of %d elements wrong" % (what, want.size))
    else:
        i = int(wrong[0])
        print("%s: %d of %d elements wrong, first at [%d]: got %g, "
              "expected %g" % (what, wrong.size, want.size, i, got[i],
                               want[i]))
    return int(wrong.size)


def run_scale(what, factor, values, want):
    """Launches scale with factor on the device array values, prints what
    came back (or what the launch raised) and returns the wrong count."""
    dev_out = cuda.to_device(np.zeros(N, dtype=np.float32))
    try:
        scale[1, N](factor, values, dev_out)
    except Exception as e:  # refused before the launch
        print("%s: %s" % (what, clinic.error_text(e)))
        return N
    out = dev_out.copy_to_host()  # waits for the kernel
    print(floats_line(what, out))
    return check_floats(what, out, want)


def run():
    values = np.arange(1, N + 1, dtype=float)  # float means float64
    want = (FACTOR * values).astype(np.float32)
    print("%d values from 1 to %d, held as double; the kernel reads float "
          "and multiplies by %g" % (N, N, FACTOR))

    # FIX: convert to the signature's float32 before the copy to the device.
    dev_values = cuda.to_device(values.astype(np.float32))
    wrong = run_scale("out", np.float32(FACTOR), dev_values, want)

    # Right data; the factor as Python float and as numpy.float64, where the
    # signature says float32.
    dev_values32 = cuda.to_device(values.astype(np.float32))
    for name, factor in (("float", FACTOR),
                         ("numpy.float64", np.float64(FACTOR))):
        wrong += run_scale("factor as %s" % name, factor, dev_values32, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
