"""Numba, correct: a lazily compiled kernel on a device array (no
finding)."""
import numpy as np
from numba import cuda


@cuda.jit
def scale(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= factor


d = cuda.to_device(np.arange(8, dtype=np.float32))
scale[1, 8](d, np.float32(2.0))
print("scaled:", d.copy_to_host().tolist())
