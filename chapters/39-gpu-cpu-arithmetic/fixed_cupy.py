"""fixed_cupy.py -- Chapter 39, CuPy twin of fixed.cu: the RawKernel computes
a * b + c with __fmul_rn and __fadd_rn, which NVRTC never fuses, so it rounds
twice as NumPy does, and every result equals NumPy's bit for bit."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_cupy_or_skip()

import cupy as cp
import numpy as np

N = 1000  # inputs

KERNEL = r"""
/* y[i] = a[i] * b[i] + c[i], the formula NumPy computes too */
extern "C" __global__
void mul_add(const float *a, const float *b, const float *c, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        /* FIX: __fmul_rn and __fadd_rn each round to nearest, and NVRTC
           never fuses them into a multiply-add: the GPU rounds the product,
           then the sum, as NumPy does. */
        y[i] = __fadd_rn(__fmul_rn(a[i], b[i]), c[i]);
}
"""


def compare(what, a, b, c, gpu, host):
    """compare() of the C programs: the same lines, the count returned."""
    g = gpu.view(np.uint32).astype(np.int64)
    h = host.view(np.uint32).astype(np.int64)
    d = np.abs(g - h)  # the results here are >= 0
    differ = np.flatnonzero(d)
    print("%s: %d of %d differ" % (what, differ.size, host.size), end="")
    if differ.size == 0:
        print()
        return 0
    ulps = int(d.max())
    print(", by at most %d ulp%s" % (ulps, "s" if ulps > 1 else ""))
    i = int(differ[0])
    print("  first at [%d]: a = %.9g, b = %.9g, c = %.9g"
          % (i, a[i], b[i], c[i]))
    print("  GPU  0x%08x = %.9g" % (g[i], gpu[i]))
    print("  host 0x%08x = %.9g" % (h[i], host[i]))
    return int(differ.size)


def run():
    mul_add = cp.RawKernel(KERNEL, "mul_add")
    # the C programs' group 1; CuPy flushes subnormals always (README)
    a = np.float32(0.001) * np.arange(N, dtype=np.float32)
    b = np.full(N, 0.3, np.float32)
    c = np.full(N, 0.5, np.float32)
    host = a * b + c  # NumPy: the product rounded, then the sum
    y = cp.empty(N, dtype=cp.float32)
    mul_add(((N + 255) // 256,), (256,),
            (cp.asarray(a), cp.asarray(b), cp.asarray(c), y, np.int32(N)))
    gpu = cp.asnumpy(y)

    print("y = a * b + c on the GPU and on the host, compared bit for bit")
    differ = compare("a = 0.001 * i, b = 0.3, c = 0.5", a, b, c, gpu, host)
    return clinic.EXIT_WRONG_RESULT if differ else clinic.EXIT_OK


sys.exit(clinic.main(run))
