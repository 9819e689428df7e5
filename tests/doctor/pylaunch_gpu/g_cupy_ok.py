"""CuPy, correct: RawKernel and RawModule given what their parameters say,
and CuPy's own kernels (no finding, no record of CuPy's kernels)."""
import cupy as cp
import numpy as np

SOURCE = r"""
extern "C" {
__global__ void axpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += a * x[i];
}
__global__ void fill(int *p, int value, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = value;
}
}
"""
n = 16
x = cp.arange(n, dtype=cp.float32)
y = cp.ones(n, dtype=cp.float32)
axpy = cp.RawKernel(SOURCE, "axpy")
axpy((1,), (n,), (np.float32(3), x, y, n))
fill = cp.RawModule(code=SOURCE).get_function("fill")
p = cp.empty(n, dtype=cp.int32)
fill((1,), (n,), (p, 7, n))
z = cp.ascontiguousarray(y.reshape(4, 4).T) * 2 + p.reshape(4, 4)
print("y:", y.get().tolist())
print("sum:", float(z.sum()))
