"""PyTorch + CuPy: a float64 tensor's data_ptr() handed to a float * kernel
(rule 29)."""
import cupy as cp
import torch

KERNEL = r"""
extern "C" __global__ void twice(const float *in, float *out, int n)
{
    int i = threadIdx.x;
    if (i < n)
        out[i] = 2 * in[i];
}
"""
twice = cp.RawKernel(KERNEL, "twice")
x = torch.arange(4, dtype=torch.float64, device="cuda")
out = cp.zeros(4, dtype=cp.float32)
twice((1,), (4,), (x.data_ptr(), out, 4))
cp.cuda.runtime.deviceSynchronize()
print("twice:", out.get().tolist())
