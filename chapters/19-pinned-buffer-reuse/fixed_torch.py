"""fixed_torch.py -- Chapter 19, PyTorch twin of fixed.cu: before it
refills a pinned staging tensor, the host waits for the event recorded
after the last copy_(..., non_blocking=True) that read it."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_torch_or_skip()
clinic.require_cupy_or_skip()  # the busy kernel is a CuPy RawKernel

import cupy as cp
import numpy as np
import torch

BATCHES = 4
N = 1 << 18  # ints per batch: 1 MiB

# Waits ns nanoseconds on the GPU's clock. With 300 ms, far longer than it
# takes to fill every batch, it stands for the work still running on the
# stream when the copies are queued behind it.
KERNEL_SOURCE = r"""
#include "clinic_wait.cuh"

extern "C" __global__ void busy_wait(unsigned long long ns)
{
    clinic_gpu_wait_ns(ns);
}
"""


def batch(b):
    """Batch b holds the numbers b * N to b * N + N - 1: every batch
    differs."""
    return torch.arange(b * N, (b + 1) * N, dtype=torch.int32)


def run():
    busy_wait = cp.RawKernel(KERNEL_SOURCE, "busy_wait",
                             options=("-I" + clinic.COMMON,))
    staging = [torch.empty(N, dtype=torch.int32, pin_memory=True)
               for _ in range(2)]
    # copied[k]: the last copy from staging[k] has run.
    copied = [torch.cuda.Event(), torch.cuda.Event()]
    dev = torch.empty(BATCHES * N, dtype=torch.int32, device="cuda")

    # Queued first, in PyTorch's current stream: the copies wait behind it.
    # A first, untimed pass loads the kernel and sets up PyTorch's pinned
    # copies, so that the 300 ms wait covers only the loop below.
    with cp.cuda.Stream.from_external(torch.cuda.current_stream()):
        busy_wait((1,), (1,), (np.uint64(0),))
        dev[:N].copy_(staging[0], non_blocking=True)
        torch.cuda.synchronize()
        busy_wait((1,), (1,), (np.uint64(300000000),))
    for b in range(BATCHES):
        k = b % 2  # fill one tensor while the other's copy waits
        # FIX: a copy reads its tensor only when its turn on the stream
        # comes. Wait until the copy that last read staging[k] has run.
        if b >= 2:
            copied[k].synchronize()
        staging[k].copy_(batch(b))  # in place: staging[k] stays pinned
        dev[b * N:(b + 1) * N].copy_(staging[k], non_blocking=True)
        copied[k].record()
    for k in range(2):  # the last copies ran: staging may be reused
        copied[k].synchronize()

    result = dev.cpu()
    wrong = 0
    for b in range(BATCHES):
        wrong += clinic.check_ints("batch %d" % b,
                                   result[b * N:(b + 1) * N].numpy(),
                                   batch(b).numpy())
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
