"""Numba: a kernel compiled for float32[:] given a float64 array (rule 29).
With one explicit signature, numba 0.68 / numba-cuda 0.30.4 launch it
without a word (seen on the GPU host: the values come back unscaled); the
check must name the mismatch."""
import numpy as np
from numba import cuda


@cuda.jit("void(float32[:], float32)")
def scale(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= factor


values = np.arange(8, dtype=np.float64)
try:
    scale[1, 8](values, 2.0)
    print("launched:", values.tolist())
except TypeError as e:
    print("numba refused the launch:", type(e).__name__)
