"""fixed.py -- Chapter 18, PyCUDA twin of fixed.cu: the same pipeline, from
cuda.pagelocked_empty (page-locked) arrays: copies overlap the kernels."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

CHUNKS = 16
CHUNK_INTS = 4 << 20  # 4 Mi ints: 16 MiB per chunk
CHUNK_BYTES = CHUNK_INTS * 4
TOTAL_INTS = CHUNKS * CHUNK_INTS
TOTAL_BYTES = TOTAL_INTS * 4
STREAMS = 4
BLOCK = 256
SPIN_NS = 2000000  # 2 ms a kernel: > 5 pinned copies of a chunk
YES_FROM = 20.0  # overlap, % of the kernel time: from this, "yes"
NO_BELOW = 1.0   # below this, "no"; in between, undecided
# A chunk's events, in its stream: its copy in runs from BEFORE_IN to AFTER_IN,
# its kernel on to AFTER_KERNEL, its copy out on to AFTER_OUT.
BEFORE_IN, AFTER_IN, AFTER_KERNEL, AFTER_OUT, MARKS = range(5)

# The kernel of the C programs: out = 2 * in + 1, then a wait of spin_ns in all.
KERNEL_SOURCE = r"""
#include "clinic_wait.cuh"

__global__ void process_chunk(const int *in, int *out, int n,
                              unsigned long long spin_ns)
{
    unsigned long long start = clinic_gpu_now_ns();
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = 2 * in[i] + 1;
    clinic_gpu_wait_since_ns(start, spin_ns);
}
"""


def inside_ms(k, c, m):
    """How long (ms) chunk c's copy, mark m to m + 1, ran in chunk k's
    kernel (k and c are lists of a chunk's times)."""
    ms = min(k[AFTER_KERNEL], c[m + 1]) - max(k[AFTER_IN], c[m])
    return max(ms, 0.0)


def run():
    show_times = sys.argv[1:2] == ["--times"]
    # FIX: page-locked memory, as PyCUDA's documentation requires for the
    # _async copies. The copy engines use it directly, so each copy is only
    # queued, and one chunk's copies can run while another's kernel does.
    host_in = cuda.pagelocked_empty(TOTAL_INTS, np.int32)
    host_out = cuda.pagelocked_empty(TOTAL_INTS, np.int32)
    host_in[:] = np.arange(TOTAL_INTS, dtype=np.int32)
    want = 2 * host_in + 1
    host_out.fill(-1)  # the marker of "never copied back"
    dev_in = cuda.mem_alloc(TOTAL_BYTES)
    dev_out = cuda.mem_alloc(TOTAL_BYTES)
    module = SourceModule(KERNEL_SOURCE, include_dirs=[clinic.COMMON])
    kernel = module.get_function("process_chunk")
    # One block per multiprocessor, as in the C programs.
    sms = pycuda.autoinit.device.get_attribute(
        cuda.device_attribute.MULTIPROCESSOR_COUNT)
    streams = [cuda.Stream() for _ in range(STREAMS)]  # blocking streams
    start = cuda.Event()
    marks = [[cuda.Event() for _ in range(MARKS)] for _ in range(CHUNKS)]
    # An untimed first launch on no elements, as in the C programs.
    kernel(np.uintp(int(dev_in)), np.uintp(int(dev_out)),
           np.int32(0), np.uint64(0), block=(BLOCK, 1, 1),
           grid=(sms, 1))
    cuda.Context.synchronize()
    start.record()  # no stream: the legacy default stream
    # The pipeline: chunk c on streams[c % STREAMS], its stages in order.
    for chunk, mark in enumerate(marks):
        stream = streams[chunk % STREAMS]
        part = slice(chunk * CHUNK_INTS, (chunk + 1) * CHUNK_INTS)
        at = chunk * CHUNK_BYTES  # the chunk's offset in the device buffers
        mark[BEFORE_IN].record(stream)
        cuda.memcpy_htod_async(int(dev_in) + at, host_in[part], stream)
        mark[AFTER_IN].record(stream)
        kernel(np.uintp(int(dev_in) + at), np.uintp(int(dev_out) + at),
               np.int32(CHUNK_INTS), np.uint64(SPIN_NS),
               block=(BLOCK, 1, 1), grid=(sms, 1), stream=stream)
        mark[AFTER_KERNEL].record(stream)
        cuda.memcpy_dtoh_async(host_out[part], int(dev_out) + at, stream)
        mark[AFTER_OUT].record(stream)
    cuda.Context.synchronize()
    t = [[event.time_since(start) for event in mark] for mark in marks]

    # Each copy's time inside each kernel of ANOTHER chunk, summed over the
    # pairs: a stretch where two copies ran inside one kernel, or one copy
    # inside two kernels, counts twice.
    pipeline_ms = max(times[AFTER_OUT] for times in t)
    kernel_ms = sum(times[AFTER_KERNEL] - times[AFTER_IN] for times in t)
    overlap_ms = 0.0
    for k in range(CHUNKS):
        for c in range(CHUNKS):
            if c != k:  # chunk c's copy in and copy out
                overlap_ms += (inside_ms(t[k], t[c], BEFORE_IN) +
                               inside_ms(t[k], t[c], AFTER_KERNEL))
    print("%d chunks of %d MiB over %d streams: copy in, kernel, copy out"
          % (CHUNKS, CHUNK_BYTES >> 20, STREAMS))
    share = 100 * overlap_ms / kernel_ms
    if share >= YES_FROM:
        print("overlapped: yes (copies ran during other chunks' kernels)")
    elif share < NO_BELOW:
        print("overlapped: no (no copy ran during another chunk's kernel)")
    else:
        print("overlapped: UNDECIDED (copies ran during other chunks' kernels"
              " for %g%% to %g%% of the kernel time; run with --times)"
              % (NO_BELOW, YES_FROM))
    if show_times:  # timings go to stderr, and only on request
        print("pipeline %.2f ms, kernels %.2f ms, overlap %.2f ms (%.1f%%)"
              % (pipeline_ms, kernel_ms, overlap_ms, share), file=sys.stderr)
    wrong = clinic.check_ints("results", host_out, want)
    dev_out.free()
    dev_in.free()
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
