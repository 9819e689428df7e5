"""broken_cupy.py -- Chapter 37, CuPy twin of broken.cu: a CUDA graph,
captured once with Stream.begin_capture(), uploads a pinned NumPy array in
every step. The host refills the array and launches the next step while the
last step's copy still waits to run: steps 0 to 2 all upload batch 3."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_cupy_or_skip()

import cupy as cp
import cupyx
import numpy as np

STEPS = 4
N = 1 << 18  # ints per batch: 1 MiB

KERNELS = r"""
#include "clinic_wait.cuh"

#define N (1 << 18)

/* The graph's first node: 100 ms, far longer than filling every batch. */
extern "C" __global__ void busy_wait(void)
{
    clinic_gpu_wait_ns(100000000ull);
}

/* Keeps what the step's copy brought: kept[step * N + i] = in[i]. */
extern "C" __global__ void keep(int *kept, const int *in, const int *step)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    kept[(size_t)*step * N + i] = in[i];
}

/* Moves on to the next step, once keep() has read the count. */
extern "C" __global__ void next_step(int *step)
{
    *step += 1;
}
"""


def batch(b):
    """Batch b holds the numbers b * N to b * N + N - 1: every batch
    differs."""
    return np.arange(b * N, (b + 1) * N, dtype=np.int32)


def run():
    module = cp.RawModule(code=KERNELS, options=("-I" + clinic.COMMON,))
    busy_wait = module.get_function("busy_wait")
    keep = module.get_function("keep")
    next_step = module.get_function("next_step")
    staging = cupyx.empty_pinned(N, np.int32)  # page-locked host memory
    dev_in = cp.zeros(N, np.int32)
    kept = cp.zeros(STEPS * N, np.int32)
    step = cp.zeros(1, np.int32)
    s = cp.cuda.Stream(non_blocking=True)

    with s:  # one step, captured once: nothing runs during the capture
        s.begin_capture()
        busy_wait((1,), (1,), ())
        dev_in.set(staging, stream=s)  # cudaMemcpyAsync from staging
        keep((N // 256,), (256,), (kept, dev_in, step))
        next_step((1,), (1,), (step,))
        graph = s.end_capture()

    for b in range(STEPS):
        # BUG: the graph's copy node holds staging's address, not its
        # bytes, and reads it when the copy runs. The last launch's copy
        # still waits behind busy_wait, and this refill replaces its data.
        staging[:] = batch(b)  # in place: staging stays page-locked
        graph.launch(stream=s)
    s.synchronize()

    result = kept.get()
    wrong = 0
    for b in range(STEPS):
        wrong += clinic.check_ints("step %d" % b, result[b * N:(b + 1) * N],
                                   batch(b))
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
