"""fixed.py -- Chapter 29, PyCUDA twin of fixed.cu: the float64 array is
converted with astype(np.float32) and checked against the kernel's type
before the copy, and the factor is passed as np.float32, so the kernel reads
the values and the factor it was meant to."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 8         # values
FACTOR = 2.0  # a Python float

KERNEL = """
/* out[i] = factor * in[i] for every i < n; in and out hold floats. */
__global__ void scale(float factor, const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = factor * in[i];
}
"""


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


def run_scale(scale, factor, values):
    """Copies the bytes of values to the GPU, runs scale with factor on
    them and returns the N floats it wrote."""
    # FIX: check the types against the kernel's before any byte is copied.
    if values.dtype != np.float32 or not isinstance(factor, np.float32):
        raise TypeError("scale() takes float32: got %s data, factor %s"
                        % (values.dtype, type(factor).__name__))
    dev_in = cuda.mem_alloc(values.nbytes)
    cuda.memcpy_htod(dev_in, values)
    dev_out = cuda.mem_alloc(N * 4)
    scale(factor, dev_in, dev_out, np.int32(N), block=(N, 1, 1), grid=(1, 1))
    out = np.empty(N, dtype=np.float32)
    cuda.memcpy_dtoh(out, dev_out)
    dev_in.free()
    dev_out.free()
    return out


def run():
    scale = SourceModule(KERNEL).get_function("scale")
    values = np.arange(1, N + 1, dtype=float)  # float means float64
    want = (FACTOR * values).astype(np.float32)
    print("%d values from 1 to %d, held as double; the kernel reads float "
          "and multiplies by %g" % (N, N, FACTOR))

    # FIX: convert to the type the kernel reads before the copy.
    out = run_scale(scale, np.float32(FACTOR), values.astype(np.float32))
    print(floats_line("out", out))
    wrong = check_floats("out", out, want)

    # Right data, right factor. FIX: np.float32, the kernel's type: it is not
    # seen from Python; what arrives depends on the scalar's own type.
    values32 = values.astype(np.float32)
    factors = (("numpy.float32", np.float32(FACTOR)),)
    for name, factor in factors:
        what = "factor as %s" % name
        try:
            out = run_scale(scale, factor, values32)
        except Exception as e:  # refused before the launch, or by CUDA
            print("%s: %s" % (what, clinic.error_text(e)))
            wrong += 1
            continue
        print(floats_line(what, out))
        wrong += check_floats(what, out, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
