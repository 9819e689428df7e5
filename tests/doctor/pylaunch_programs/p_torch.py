"""data_ptr() of torch tensors (the stand-in) handed to a CuPy RawKernel."""
import cupy
import torch

SRC = 'extern "C" __global__ void add(const float *a, float *b, int n) {}'
k = cupy.RawKernel(SRC, "add")
a = torch.empty(4, 6)
b = cupy.empty(24, dtype="float32")
k((1,), (24,), (a.t().data_ptr(), b, 24))  # 30: a transposed view
d = torch.empty(24, dtype=torch.float64)
k((1,), (24,), (d.data_ptr(), b, 24))  # 29: float64 into float *
e = torch.empty(24, device_index=1)
k((1,), (24,), (e.data_ptr(), b, 24))  # 32: e lives on device 1
k((1,), (24,), (a.data_ptr(), b, 24))  # clean: the last data_ptr() was a's
print("launched", len(cupy.launched))
