"""A launch that CuPy (the stand-in) refuses, uncaught: the traceback must
print as it would without the check, and a pyerror record is written."""
import cupy

k = cupy.RawKernel('extern "C" __global__ void f(int *p) {}', "f")
print("launching")
k((1,), (1,), (object(),))
