"""fixed.py -- Chapter 41, PyCUDA twin of fixed.cu: the '>f4' readings are
converted with astype(np.float32), NumPy's float32 in the host's own byte
order, which is the GPU's, before memcpy_htod copies them."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 8  # readings

# The file's contents: N temperature readings, each an IEEE 754 float
# stored most significant byte first (big-endian), as FITS files and
# network protocols store them: 20.5 21.25 20.1062 21.37 22 20.1 19.5 21.
FILE_BYTES = bytes.fromhex("41a40000 41aa0000 41a0d97f 41aaf5c3"
                           "41b00000 41a0cccd 419c0000 41a80000")

KERNEL = """
/* One thread: seen[i] = x[i], what the kernel read, and *sum = the sum of
   x[0..n-1] in order (the same order as the host's sum). */
__global__ void total(const float *x, float *seen, float *sum, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++) {
        seen[i] = x[i];
        s += x[i];
    }
    *sum = s;
}
"""


def floats_line(what, values):
    return "%s: %s" % (what, " ".join("%g" % v for v in values))


def run():
    total = SourceModule(KERNEL).get_function("total")
    # '>f4': NumPy knows the byte order and shows the right values.
    readings = np.frombuffer(FILE_BYTES, dtype=">f4")
    want = np.float32(0)
    for value in readings:  # one by one, in the kernel's order
        want = np.float32(want + value)
    print("%d readings stored as big-endian floats" % N)
    print(floats_line("readings on the host", readings))

    dev_x = cuda.mem_alloc(readings.nbytes)
    # FIX: convert to float32 in the host's byte order, the GPU's, first:
    # memcpy_htod copies the bytes as they are.
    cuda.memcpy_htod(dev_x, readings.astype(np.float32))
    seen = np.empty(N, dtype=np.float32)
    total_sum = np.empty(1, dtype=np.float32)
    total(dev_x, cuda.Out(seen), cuda.Out(total_sum), np.int32(N),
          block=(1, 1, 1), grid=(1, 1))
    dev_x.free()

    print(floats_line("the kernel read", seen))
    print("sum on the GPU: %g, on the host: %g" % (total_sum[0], want))
    if total_sum[0] != want:
        print("sum: wrong")
        return clinic.EXIT_WRONG_RESULT
    print("sum: right")
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
