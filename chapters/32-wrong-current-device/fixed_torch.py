"""fixed_torch.py -- Chapter 32, PyTorch twin of fixed.cu: a device guard,
torch.cuda.device(out.device), makes the tensor's device current around the
raw kernel's launch, so the kernel runs where its tensor lives."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

# The raw kernel is a CuPy RawKernel; CuPy counts the GPUs before PyTorch
# loads, so a one-GPU host skips at once.
clinic.require_cupy_or_skip(2)
clinic.require_torch_or_skip()

import cupy as cp
import numpy as np
import torch

N = 1024
WORK_DEVICE = 1  # the device the work is meant for, by index

KERNEL = r"""
/* out[i] = i + 1 for every i < n. */
extern "C" __global__ void fill(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i + 1;
}
"""


def run():
    fill = cp.RawKernel(KERNEL, "fill")
    want = np.arange(1, N + 1, dtype=np.int32)
    # The program's other work runs on the default device, cuda:0. (With
    # no work there yet, PyTorch 2.11 left device 1 current after the
    # zeros below, and the launch happened to go to the right device.)
    print("work on cuda:0: %d ones summed"
          % torch.ones(N, dtype=torch.int32, device="cuda").sum().item())
    out = torch.zeros(N, dtype=torch.int32, device="cuda:%d" % WORK_DEVICE)
    torch.cuda.synchronize(out.device)  # the zeros are in place

    # FIX: a raw kernel goes to the current device: make the tensor's
    # device current around the launch.
    with torch.cuda.device(out.device):
        print("tensor on device %d, kernel launched on device %d"
              % (out.device.index, cp.cuda.Device().id))
        fill((N // 256,), (256,), (out.data_ptr(), np.int32(N)))
        cp.cuda.Device().synchronize()  # the kernel's device

    wrong = clinic.check_ints("out", out.cpu().numpy(), want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
