"""fixed.py -- Chapter 18, PyCUDA twin of fixed.cu: the same pipeline with host
arrays from cuda.pagelocked_empty (page-locked memory). The copies of some
chunks run while the kernels of others do."""
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

# The kernel of the C programs: out[i] = 2 * in[i] + 1, then a wait on the
# GPU's clock until spin_ns have passed since the thread began.
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


class Pipeline:
    """The host and device buffers of the pipeline, and how its kernels run."""

    def __init__(self, host_in, host_out):
        self.host_in, self.host_out = host_in, host_out
        self.dev_in = cuda.mem_alloc(TOTAL_BYTES)
        self.dev_out = cuda.mem_alloc(TOTAL_BYTES)
        module = SourceModule(KERNEL_SOURCE, include_dirs=[clinic.COMMON])
        self.kernel = module.get_function("process_chunk")
        # Each kernel fills the GPU and every block waits the full time, so
        # kernels cannot save time by sharing the GPU. This small kernel is
        # limited by threads per SM only (the C programs ask the occupancy
        # API instead).
        attr = pycuda.autoinit.device.get_attribute
        per_sm = attr(cuda.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR)
        sms = attr(cuda.device_attribute.MULTIPROCESSOR_COUNT)
        self.grid = per_sm // BLOCK * sms
        self.spin_ns = 0

    def launch(self, first, spin_ns, stream):
        """Queues the kernel on the chunk that starts at element first."""
        self.kernel(np.uintp(int(self.dev_in) + 4 * first),
                    np.uintp(int(self.dev_out) + 4 * first),
                    np.int32(CHUNK_INTS), np.uint64(spin_ns),
                    block=(BLOCK, 1, 1), grid=(self.grid, 1), stream=stream)

    def queue_stage(self, stage, chunk, stream):
        """Queues one stage of one chunk on stream."""
        first = chunk * CHUNK_INTS
        part = slice(first, first + CHUNK_INTS)
        if stage == COPY_IN:
            cuda.memcpy_htod_async(int(self.dev_in) + 4 * first,
                                   self.host_in[part], stream)
        elif stage == KERNEL:
            self.launch(first, self.spin_ns, stream)
        else:
            cuda.memcpy_dtoh_async(self.host_out[part],
                                   int(self.dev_out) + 4 * first, stream)

    def free(self):
        self.dev_out.free()
        self.dev_in.free()


def run_one_at_a_time(p, stream):
    """Runs every stage of every chunk alone on stream, waiting for each
    one. Returns the time of each kind of stage in ms; their sum is the serial
    time."""
    stage_ms = [0.0, 0.0, 0.0]
    before, after = cuda.Event(), cuda.Event()
    for stage in (COPY_IN, KERNEL, COPY_OUT):
        if stage == KERNEL:
            # Twice a chunk's copy in: about as long as both copies of a chunk.
            p.spin_ns = int(2e6 * stage_ms[COPY_IN] / CHUNKS)
            p.launch(0, 0, stream)  # the first launch: not timed
            stream.synchronize()
        for chunk in range(CHUNKS):
            before.record(stream)
            p.queue_stage(stage, chunk, stream)
            after.record(stream)
            after.synchronize()
            stage_ms[stage] += after.time_since(before)
    return stage_ms


def run_pipelined(p, streams):
    """Chunk c goes to streams[c % STREAMS], its stages in order. Returns ms."""
    start, stop = cuda.Event(), cuda.Event()
    start.record()  # no stream: the legacy default stream
    for chunk in range(CHUNKS):
        for stage in (COPY_IN, KERNEL, COPY_OUT):
            p.queue_stage(stage, chunk, streams[chunk % STREAMS])
    # The legacy default stream waits for every blocking stream (chapter 08).
    stop.record()
    stop.synchronize()
    return stop.time_since(start)


def print_verdict(share):
    if share < YES_BELOW:
        print("overlapped: yes (the pipeline took less than %.1f of the "
              "serial time)" % YES_BELOW)
    elif share >= NO_FROM:
        print("overlapped: no (the pipeline took at least %.1f of the "
              "serial time)" % NO_FROM)
    else:
        print("overlapped: UNDECIDED (the pipeline took between %.1f and %.1f "
              "of the serial time; run with --times)" % (YES_BELOW, NO_FROM))


def run():
    show_times = sys.argv[1:2] == ["--times"]
    # FIX: page-locked memory, as PyCUDA's documentation requires for the
    # _async copies. The copy engines read and write it directly, so each copy
    # is only queued, and the copies of one chunk can run while another's
    # kernel does.
    host_in = cuda.pagelocked_empty(TOTAL_INTS, np.int32)
    host_out = cuda.pagelocked_empty(TOTAL_INTS, np.int32)
    host_in[:] = np.arange(TOTAL_INTS, dtype=np.int32)
    want = 2 * host_in + 1
    host_out.fill(-1)  # the marker of "never copied back"
    p = Pipeline(host_in, host_out)
    streams = [cuda.Stream() for _ in range(STREAMS)]  # blocking streams

    stage_ms = run_one_at_a_time(p, streams[0])
    serial_ms = sum(stage_ms)
    host_out.fill(-1)  # the check below sees only the pipeline's results
    pipelined_ms = run_pipelined(p, streams)

    print("%d chunks of %d MiB over %d streams: copy in, kernel, copy out"
          % (CHUNKS, CHUNK_BYTES >> 20, STREAMS))
    print_verdict(pipelined_ms / serial_ms)
    if show_times:  # timings go to stderr, and only on request
        gb = TOTAL_BYTES / 1e6  # GB/s from ms
        print("serial: copy in %.1f ms (%.1f GB/s), kernels %.1f ms, "
              "copy out %.1f ms (%.1f GB/s), total %.1f ms"
              % (stage_ms[COPY_IN], gb / stage_ms[COPY_IN], stage_ms[KERNEL],
                 stage_ms[COPY_OUT], gb / stage_ms[COPY_OUT], serial_ms),
              file=sys.stderr)
        print("pipeline: %.1f ms, %.2f of the serial time"
              % (pipelined_ms, pipelined_ms / serial_ms), file=sys.stderr)
    wrong = clinic.check_ints("results", host_out, want)
    p.free()
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
