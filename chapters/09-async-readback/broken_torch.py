"""broken_torch.py -- Chapter 09, PyTorch twin of broken.cu: the host reads
the tensor that t.to("cpu", non_blocking=True) returns before the copy has
run, and sees what its fresh pinned memory held, not the data."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_torch_or_skip()
clinic.require_cupy_or_skip()  # the slow kernel is a CuPy RawKernel

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
    """Zeros dev, then starts slow_fill on it in PyTorch's current stream
    (CuPy launches there only when told: from_external)."""
    dev.zero_()
    stream = torch.cuda.current_stream()
    with cp.cuda.Stream.from_external(stream):
        slow_fill((N // 256,), (256,), (dev.data_ptr(), np.int32(N)))


def run():
    slow_fill = cp.RawKernel(KERNEL, "slow_fill",
                             options=("-I" + clinic.COMMON,))
    want = np.arange(1, N + 1, dtype=np.int32)
    dev = torch.empty(N, dtype=torch.int32, device="cuda")

    # The usual way: .cpu() copies in the same stream and waits for it.
    start_slow_fill(slow_fill, dev)
    host = dev.cpu()
    wrong = clinic.check_ints("kernel, then t.cpu()", host.numpy(), want)

    start_slow_fill(slow_fill, dev)
    host = dev.to("cpu", non_blocking=True)  # pinned memory, copy queued
    # BUG: non_blocking=True only queues the copy behind the kernel and
    # returns at once: host is fresh pinned memory the copy has not filled.
    wrong += clinic.check_ints('t.to("cpu", non_blocking=True)',
                               host.numpy(), want)
    torch.cuda.synchronize()  # BUG: waits, but too late
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
