"""An argument the check cannot read: the launch happens all the same."""
import cupy
import numpy


class Strange(numpy.generic):
    def __init__(self, value):
        self.value = value

    @property
    def dtype(self):
        raise RuntimeError("no dtype today")


k = cupy.RawKernel('extern "C" __global__ void f(float x) {}', "f")
k((1,), (1,), (Strange(1.0),))
print("launched", len(cupy.launched))
