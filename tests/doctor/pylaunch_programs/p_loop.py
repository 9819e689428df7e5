"""Launches in a loop: alike but for their values, then one that is not."""
import cupy
import numpy

k = cupy.RawKernel('extern "C" __global__ void f(float a, float *p) {}', "f")
x = cupy.empty(4, dtype="float32")
for i in range(10):
    k((1,), (1,), (numpy.float32(i), x))
k2 = cupy.RawKernel('extern "C" __global__ void g(int n) {}', "g")
for n in (1, 2, 3, 4, 2 ** 40):
    k2((1,), (1,), (n,))
y = cupy.empty(4, dtype="float64")
for i in range(5):
    k((1,), (1,), (numpy.float32(i), y))
print("done")
