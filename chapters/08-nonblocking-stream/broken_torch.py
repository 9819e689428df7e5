"""broken_torch.py -- Chapter 08, PyTorch twin of broken.cu: a raw kernel
runs in torch.cuda.stream(s), a stream PyTorch creates non-blocking, and
t.cpu() in the default stream copies its output back without waiting for
it."""
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
    """Zeros dev, then starts slow_fill on it in PyTorch's current stream
    (CuPy launches in PyTorch's stream only when told: from_external)."""
    dev.zero_()
    torch.cuda.synchronize()  # the zeros are in place before any stream
    with cp.cuda.Stream.from_external(torch.cuda.current_stream()):
        slow_fill((N // 256,), (256,), (dev.data_ptr(), np.int32(N)))


def report(name, host, stream):
    """Call right after the copy: says whether the kernel's stream had
    finished, and checks host."""
    # True: the kernel had finished; False: it was still running.
    print("%s: after the copy, query(): %s" % (name, stream.query()))
    want = np.arange(1, N + 1, dtype=np.int32)
    wrong = clinic.check_ints(name, host.numpy(), want)
    torch.cuda.synchronize()  # the kernel ends before dev is zeroed
    return wrong


def run():
    slow_fill = cp.RawKernel(KERNEL, "slow_fill",
                             options=("-I" + clinic.COMMON,))
    dev = torch.empty(N, dtype=torch.int32, device="cuda")
    s = torch.cuda.Stream()  # PyTorch's streams are non-blocking

    # t.cpu() in the default stream is ordered after a kernel there.
    start_slow_fill(slow_fill, dev)
    host = dev.cpu()
    wrong = report("kernel in the default stream", host,
                   torch.cuda.default_stream())

    with torch.cuda.stream(s):
        start_slow_fill(slow_fill, dev)
    # BUG: s is non-blocking: the default stream does not wait for it, so
    # this copy runs at once and brings back the zeros.
    host = dev.cpu()
    wrong += report("kernel in torch.cuda.stream(s)", host, s)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
