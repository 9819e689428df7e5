"""broken_numba.py -- Chapter 39, Numba twin of broken.cu: a @cuda.jit
kernel's a * b + c compared bit for bit with NumPy's. Numba's compiler fuses
the GPU's into one multiply-add that rounds once, NumPy rounds twice, and
some results differ in the last bit."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_numba_or_skip()

import numpy as np
from numba import config, cuda

# 8 blocks of 256 threads is the lesson's size: no warning about occupancy
config.CUDA_LOW_OCCUPANCY_WARNINGS = False
N = 1000  # inputs in each of the two groups


@cuda.jit
def mul_add(a, b, c, y):
    """y[i] = a[i] * b[i] + c[i], the formula NumPy computes too."""
    i = cuda.grid(1)
    if i < y.size:
        # BUG: Numba's compiler contracts a * b + c into one fused
        # multiply-add (fma.rn.f32 in its PTX, without fastmath): the exact
        # product is added to c and rounded once, where NumPy rounds the
        # product, then the sum.
        y[i] = a[i] * b[i] + c[i]


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
    i = np.arange(N, dtype=np.float32)
    # group 1: a, b, c ordinary numbers; group 2: a subnormal a
    a = np.concatenate([np.float32(0.001) * i, (i + 1) * np.float32(1e-41)])
    b = np.concatenate([np.full(N, 0.3, np.float32),
                        np.full(N, 1e30, np.float32)])
    c = np.concatenate([np.full(N, 0.5, np.float32), np.zeros(N, np.float32)])
    host = a * b + c  # NumPy: the product rounded, then the sum
    y = cuda.device_array(2 * N, dtype=np.float32)
    mul_add[(2 * N + 255) // 256, 256](cuda.to_device(a), cuda.to_device(b),
                                       cuda.to_device(c), y)
    gpu = y.copy_to_host()

    print("y = a * b + c on the GPU and on the host, compared bit for bit")
    differ = compare("a = 0.001 * i, b = 0.3, c = 0.5", a[:N], b[:N], c[:N],
                     gpu[:N], host[:N])
    differ += compare("a = (i + 1) * 1e-41 (subnormal), b = 1e30, c = 0",
                      a[N:], b[N:], c[N:], gpu[N:], host[N:])
    return clinic.EXIT_WRONG_RESULT if differ else clinic.EXIT_OK


sys.exit(clinic.main(run))
