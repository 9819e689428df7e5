"""broken.py -- Chapter 38, PyCUDA twin of broken.cu: a kernel fills a send
buffer, and its pointer is handed at once to a "library" that copies it on a
non-blocking stream of its own: the receiver gets the old contents."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 1024

KERNEL = """
#include "clinic_wait.cuh"

#define SPIN_NS 200000000ull /* 200 ms: far longer than a hand-over takes */

/* Waits SPIN_NS on the GPU's clock, then writes the message. */
__global__ void pack_message(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    clinic_gpu_wait_ns(SPIN_NS);
    if (i < n)
        out[i] = i + 1;
}
"""


class Library:
    """The stand-in for a communication library (CUDA-aware MPI, NCCL,
    another framework): it moves data on a stream of its own, created
    non-blocking, and knows nothing of the caller's streams."""

    def __init__(self):
        self.stream = cuda.Stream(flags=1)  # CU_STREAM_NON_BLOCKING

    def send(self, send, recv, nbytes):
        """A device-to-device copy on the library's stream, finished
        before it returns."""
        cuda.memcpy_dtod_async(recv, send, nbytes, stream=self.stream)
        self.stream.synchronize()


def run():
    module = SourceModule(KERNEL, include_dirs=[clinic.COMMON])
    pack_message = module.get_function("pack_message")
    host = np.empty(N, dtype=np.int32)
    want = np.arange(1, N + 1, dtype=np.int32)
    send = cuda.mem_alloc(host.nbytes)
    recv = cuda.mem_alloc(host.nbytes)
    library = Library()
    # the send buffer holds zeros, the last message, before the kernel
    cuda.memset_d32(send, 0, N)
    cuda.memset_d32(recv, 0, N)
    cuda.Context.synchronize()

    # the kernel goes to the legacy default stream (no stream= given); PyCUDA
    # has no handle for that stream to query, so an event stands in
    pack_message(send, np.int32(N), block=(256, 1, 1), grid=(N // 256, 1))
    kernel_done = cuda.Event().record()
    # BUG: the pointer is handed over while the kernel is still running, and
    # the library's non-blocking stream does not wait for stream 0: it
    # copies the send buffer as it is now.
    print("hand-over: kernel done (Event.query): %s" % kernel_done.query())
    library.send(send, recv, host.nbytes)

    cuda.memcpy_dtoh(host, recv)
    wrong = clinic.check_ints("receiver", host, want)
    # this copy is on stream 0, queued behind the kernel: the sender's own
    # buffer does hold the message once the kernel is done
    cuda.memcpy_dtoh(host, send)
    wrong += clinic.check_ints("send buffer, read on stream 0", host, want)
    recv.free()
    send.free()
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
