"""fixed_torch.py -- Chapter 08, PyTorch twin of fixed.cu: the tensor work
in torch.cuda.stream(s) first makes s wait for the default stream
(s.wait_stream), so its copy comes after the raw kernel."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_torch_or_skip()
clinic.require_cupy_or_skip()  # the raw kernel is a CuPy RawKernel

import cupy as cp
import numpy as np
import torch

N = 1024

KERNEL = r"""
#include "clinic_wait.cuh"

#define SPIN_NS 200000000ull /* 200 ms: far longer than issuing a copy takes */

/* Waits SPIN_NS on the GPU's clock, then writes out[i] = i + 1. */
extern "C" __global__ void slow_fill(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    clinic_gpu_wait_ns(SPIN_NS);
    if (i < n)
        out[i] = i + 1;
}
"""


def start_slow_fill(slow_fill, dev):
    """Zeros dev, then starts slow_fill on it in the default stream
    (CuPy launches in PyTorch's stream only when told: from_external)."""
    dev.zero_()
    torch.cuda.synchronize()  # the zeros are in place before any stream
    default = torch.cuda.default_stream()
    with cp.cuda.Stream.from_external(default):
        slow_fill((N // 256,), (256,), (dev.data_ptr(), np.int32(N)))


def report(name, host):
    """Call right after the copy: says whether the kernel had finished, and
    checks host."""
    # True: the default stream, and so the kernel, had finished.
    print("%s: after the copy, default_stream().query(): %s"
          % (name, torch.cuda.default_stream().query()))
    want = np.arange(1, N + 1, dtype=np.int32)
    wrong = clinic.check_ints(name, host.numpy(), want)
    torch.cuda.synchronize()  # the kernel ends before dev is zeroed
    return wrong


def run():
    slow_fill = cp.RawKernel(KERNEL, "slow_fill",
                             options=("-I" + clinic.COMMON,))
    dev = torch.empty(N, dtype=torch.int32, device="cuda")
    s = torch.cuda.Stream()  # PyTorch's streams are non-blocking

    # .cpu() in the default stream is ordered after the kernel there.
    start_slow_fill(slow_fill, dev)
    wrong = report("t.cpu() in the default stream", dev.cpu())

    start_slow_fill(slow_fill, dev)
    with torch.cuda.stream(s):
        # FIX: s is non-blocking: make it wait for the default stream's
        # kernel before its copy.
        s.wait_stream(torch.cuda.default_stream())
        host = dev.cpu()
    wrong += report("t.cpu() in torch.cuda.stream(s)", host)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
