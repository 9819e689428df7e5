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
YES_BELOW = 0.7  # pipeline time / serial time below this: overlapped
NO_FROM = 0.8    # at or above this: not overlapped; in between: undecided
COPY_IN, KERNEL, COPY_OUT = 0, 1, 2

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
    # Each kernel fills the GPU: threads per SM are this small kernel's only
    # limit (the C programs ask the occupancy API instead).
    attr = pycuda.autoinit.device.get_attribute
    per_sm = attr(cuda.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR)
    grid = per_sm // BLOCK * attr(cuda.device_attribute.MULTIPROCESSOR_COUNT)
    streams = [cuda.Stream() for _ in range(STREAMS)]  # blocking streams
    start, stop = cuda.Event(), cuda.Event()
    spin_ns = 0  # each kernel's wait, read by queue_stage when it runs

    def queue_stage(stage, chunk, stream):
        part = slice(chunk * CHUNK_INTS, (chunk + 1) * CHUNK_INTS)
        at = chunk * CHUNK_BYTES  # the chunk's offset in the device buffers
        if stage == KERNEL:
            kernel(np.uintp(int(dev_in) + at), np.uintp(int(dev_out) + at),
                   np.int32(CHUNK_INTS), np.uint64(spin_ns),
                   block=(BLOCK, 1, 1), grid=(grid, 1), stream=stream)
        elif stage == COPY_IN:
            cuda.memcpy_htod_async(int(dev_in) + at, host_in[part], stream)
        else:
            cuda.memcpy_dtoh_async(host_out[part], int(dev_out) + at, stream)

    # The serial time: each stage of each chunk alone, the times added up.
    stage_ms = [0.0, 0.0, 0.0]
    for stage in (COPY_IN, KERNEL, COPY_OUT):
        if stage == KERNEL:
            queue_stage(KERNEL, 0, streams[0])  # spin_ns 0: loads it, untimed
            streams[0].synchronize()
            # twice a chunk's copy in: about as long as both its copies
            spin_ns = int(2e6 * stage_ms[COPY_IN] / CHUNKS)
        for chunk in range(CHUNKS):
            start.record(streams[0])
            queue_stage(stage, chunk, streams[0])
            stop.record(streams[0])
            stop.synchronize()
            stage_ms[stage] += stop.time_since(start)
    serial_ms = sum(stage_ms)
    host_out.fill(-1)  # the check below sees only the pipeline's results
    # The pipeline: chunk c on streams[c % STREAMS], its stages in order.
    start.record()  # no stream: the legacy default stream
    for chunk in range(CHUNKS):
        for stage in (COPY_IN, KERNEL, COPY_OUT):
            queue_stage(stage, chunk, streams[chunk % STREAMS])
    stop.record()  # waits for every blocking stream (chapter 08)
    stop.synchronize()
    pipelined_ms = stop.time_since(start)

    print("%d chunks of %d MiB over %d streams: copy in, kernel, copy out"
          % (CHUNKS, CHUNK_BYTES >> 20, STREAMS))
    share = pipelined_ms / serial_ms
    if share < YES_BELOW:
        print("overlapped: yes (the pipeline took less than %.1f of the "
              "serial time)" % YES_BELOW)
    elif share >= NO_FROM:
        print("overlapped: no (the pipeline took at least %.1f of the "
              "serial time)" % NO_FROM)
    else:
        print("overlapped: UNDECIDED (the pipeline took between %.1f and %.1f "
              "of the serial time; run with --times)" % (YES_BELOW, NO_FROM))
    if show_times:  # timings go to stderr, and only on request
        gb = TOTAL_BYTES / 1e6  # GB/s from ms
        print("serial: copy in %.1f ms (%.1f GB/s), kernels %.1f ms, "
              "copy out %.1f ms (%.1f GB/s), total %.1f ms"
              % (stage_ms[COPY_IN], gb / stage_ms[COPY_IN], stage_ms[KERNEL],
                 stage_ms[COPY_OUT], gb / stage_ms[COPY_OUT], serial_ms),
              file=sys.stderr)
        print("pipeline: %.1f ms, %.2f of the serial time"
              % (pipelined_ms, share), file=sys.stderr)
    wrong = clinic.check_ints("results", host_out, want)
    dev_out.free()
    dev_in.free()
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
