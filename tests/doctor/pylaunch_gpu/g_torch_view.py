"""PyTorch + CuPy: the data_ptr() of a transposed view handed to a raw
kernel that reads dense rows (rule 30)."""
import cupy as cp
import torch

KERNEL = r"""
extern "C" __global__
void row_sums(const float *m, int rows, int cols, float *out)
{
    int r = threadIdx.x;
    if (r < rows) {
        float s = 0;
        for (int c = 0; c < cols; c++)
            s += m[r * cols + c];
        out[r] = s;
    }
}
"""
row_sums = cp.RawKernel(KERNEL, "row_sums")
a = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)
t = a.t()  # 4 x 3, a view: its rows are not next to each other
out = cp.zeros(4, dtype=cp.float32)
row_sums((1,), (4,), (t.data_ptr(), 4, 3, out))
cp.cuda.runtime.deviceSynchronize()
print("row sums as the kernel read them:", out.get().tolist())
print("row sums of the view:", t.sum(dim=1).tolist())
