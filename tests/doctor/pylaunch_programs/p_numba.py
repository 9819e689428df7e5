"""Numba (the stand-in): an explicit float32 signature given float64."""
import numpy
from numba import cuda


@cuda.jit(("float32",))
def scale(a):
    pass


@cuda.jit()
def lazy(a):
    pass


x = numpy.empty(8, "float64")
try:
    scale[1, 8](x)  # 29
except TypeError as e:
    print("numba:", e)
lazy[1, 8](x)  # no signature: Numba compiles for float64
scale[1, 8](numpy.empty(8, "float32"))  # clean
