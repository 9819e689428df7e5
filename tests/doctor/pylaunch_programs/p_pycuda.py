"""PyCUDA (the stand-in) launches: unprepared, prepared and a view."""
import numpy
import pycuda.driver as drv
from pycuda import gpuarray
from pycuda.compiler import SourceModule

SRC = """
__global__ void scale(float factor, const float *in, float *out, int n)
{
}
"""
f = SourceModule(SRC).get_function("scale")
values = numpy.empty(8, "float64")
dev_in = drv.mem_alloc(values.nbytes)
drv.memcpy_htod(dev_in, values)
dev_out = drv.mem_alloc(32)
f(numpy.float32(2.0), dev_in, dev_out, numpy.int32(8), block=(8, 1, 1),
  grid=(1, 1))  # 29: filled from float64
try:
    f(2.0, dev_out, dev_out, numpy.int32(8), block=(8, 1, 1))
except TypeError as e:
    print("refused:", e)  # 29: a Python float
f(numpy.float64(2.0), dev_out, dev_out, numpy.int32(8))  # 29: 8 bytes
g = f.prepare("dPPi")
g.prepared_call((1, 1), (8, 1, 1), 2.0, dev_out, dev_out, 8)  # 29: "d"
h = SourceModule(SRC).get_function("scale").prepare("fPPi")
h.prepared_call((1, 1), (8, 1, 1), 2.0, dev_out, dev_out, 8)  # clean
ROWS = """__global__ void row_sums(const int *block, int rows, int cols,
                                  int *sums) {}"""
f2 = SourceModule(ROWS).get_function("row_sums")
block = gpuarray.empty((4, 6), "int32")[:, 2:5]
f2(block, numpy.int32(4), numpy.int32(3), gpuarray.empty(4, "int32"))  # 30
print("launched", len(drv.launched))
