"""CuPy (the stand-in) launches for rules 29, 30 and 32, and a clean one."""
import cupy
import numpy

SRC = r"""
/* out[i] = factor * in[i] */
extern "C" __global__
void scale(float factor, const float *in, float *out, int n) { }
"""

k = cupy.RawKernel(SRC, "scale")
x64 = cupy.empty(8, dtype="float64")
x32 = cupy.empty(8, dtype="float32")
out = cupy.empty(8, dtype="float32")
k((1,), (8,), (numpy.float32(2.0), x64, out, numpy.int32(8)))  # 29 array
k((1,), (8,), (2.0, x32, out, 8))  # 29 Python float (the int 8 is fine)
k((1,), (8,), (numpy.float32(2.0), x32, out, 8))  # clean
k((1,), (8,), (numpy.float64(2.0), x32, out, 8))  # 29: a float64 scalar
view = cupy.ndarray((4, 3), "float32", strides=(24, 4))
k((1,), (8,), (numpy.float32(2.0), view, out, 8))  # 30
mod = cupy.RawModule(code=SRC)
k2 = mod.get_function("scale")
k2((1,), (8,), (numpy.float32(1.0), x32, out, 2 ** 40))  # 29: int too big
cupy.cuda.runtime.current = 1
k((1,), (8,), (numpy.float32(2.0), x32, out, 8))  # 32: x32 is on device 0
print(isinstance(k, cupy.RawKernel), isinstance(k2, cupy.RawKernel),
      type(k).__name__, type(k).__module__, len(cupy.launched))
