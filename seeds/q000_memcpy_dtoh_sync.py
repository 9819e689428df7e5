"""q000_memcpy_dtoh_sync.py -- Seed question 000 (PyCUDA's memcpy_dtoh said to
return wrong data), its code run: does memcpy_dtoh need Context.synchronize()
after a launch, when does it need a wait, and what do the three examples do?

Prints one line per claim, `claim: <claim> -> <verdict>: <what happened>`, and
exits 0 when every line shows what this program expects, 1 otherwise.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 1024  # elements in examples 1 and 3

KERNELS = """
#include "clinic_wait.cuh"

#define SPIN_NS 200000000ull /* 200 ms: far longer than issuing a copy takes */

/* Example 1's kernel, c[i] = a[i] + b[i], after a wait of SPIN_NS on the
   GPU's clock, so that a copy issued right after the launch is issued while
   the kernel is still running. */
__global__ void slow_add(const int *a, const int *b, int *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    clinic_gpu_wait_ns(SPIN_NS);
    if (i < n)
        c[i] = a[i] + b[i];
}

/* Example 2's kernel: one block, thread i doubles element i. */
__global__ void doubled_by_thread(const int *a, int *b, int n)
{
    int i = threadIdx.x;
    if (i < n)
        b[i] = a[i] * 2;
}

/* Example 3's kernel: thread i of the grid doubles element i. */
__global__ void doubled(const int *a, int *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = a[i] * 2;
}
"""


def without_synchronize(slow_add):
    """Example 1 as the question writes it, with the line it calls incorrect:
    the kernel on the default stream, then memcpy_dtoh at once."""
    a = np.arange(1, N + 1, dtype=np.int32)
    b = np.full(N, 100, dtype=np.int32)
    c = np.zeros_like(a)
    a_gpu = cuda.mem_alloc(a.nbytes)
    b_gpu = cuda.mem_alloc(b.nbytes)
    c_gpu = cuda.mem_alloc(c.nbytes)
    cuda.memcpy_htod(a_gpu, a)
    cuda.memcpy_htod(b_gpu, b)
    cuda.memset_d32(c_gpu, 0, N)
    cuda.Context.synchronize()  # set-up done: from here on, no synchronize

    slow_add(a_gpu, b_gpu, c_gpu, np.int32(N),
             block=(256, 1, 1), grid=((N + 255) // 256, 1))
    # On the default stream, right after the kernel:
    kernel_end = cuda.Event().record()
    running_at_call = not kernel_end.query()
    cuda.memcpy_dtoh(c, c_gpu)  # no Context.synchronize() before it
    done_at_return = kernel_end.query()
    wrong = clinic.count_wrong(c, a + b)
    clinic.claim("memcpy_dtoh right after a launch on the default stream, "
                 "without Context.synchronize(), can read incomplete data "
                 "(seed 000, example 1)",
                 "false",
                 "kernel still running when memcpy_dtoh was called: %s; "
                 "kernel finished when it returned: %s; "
                 "%d of %d elements wrong"
                 % (running_at_call, done_at_return, wrong, N),
                 running_at_call and done_at_return and wrong == 0)


def on_nonblocking_stream(slow_add):
    """The same launch on a non-blocking stream, the case that does need a
    wait."""
    a = np.arange(1, N + 1, dtype=np.int32)
    b = np.full(N, 100, dtype=np.int32)
    c = np.zeros_like(a)
    a_gpu = cuda.mem_alloc(a.nbytes)
    b_gpu = cuda.mem_alloc(b.nbytes)
    c_gpu = cuda.mem_alloc(c.nbytes)
    cuda.memcpy_htod(a_gpu, a)
    cuda.memcpy_htod(b_gpu, b)
    cuda.memset_d32(c_gpu, 0, N)
    cuda.Context.synchronize()
    stream = cuda.Stream(flags=1)  # CU_STREAM_NON_BLOCKING

    slow_add(a_gpu, b_gpu, c_gpu, np.int32(N),
             block=(256, 1, 1), grid=((N + 255) // 256, 1), stream=stream)
    cuda.memcpy_dtoh(c, c_gpu)  # does not wait for a non-blocking stream
    wrong_without_wait = clinic.count_wrong(c, a + b)
    stream.synchronize()
    cuda.memcpy_dtoh(c, c_gpu)
    wrong_after_wait = clinic.count_wrong(c, a + b)
    clinic.claim("a kernel launched on a non-blocking stream, Stream(flags=1), "
                 "needs a wait before memcpy_dtoh",
                 "true",
                 "without a wait %d of %d elements wrong (the zeros from "
                 "before the launch); after stream.synchronize() %d of %d "
                 "wrong" % (wrong_without_wait, N, wrong_after_wait, N),
                 wrong_without_wait == N and wrong_after_wait == 0)


def output_too_small(doubled_by_thread):
    """Example 2 as the question writes it: a 3-int output buffer, 4 threads."""
    a = np.array([1, 2, 3, 4], dtype=np.int32)
    b = np.zeros(3, dtype=np.int32)
    a_gpu = cuda.mem_alloc(a.nbytes)
    b_gpu = cuda.mem_alloc(b.nbytes)
    cuda.memcpy_htod(a_gpu, a)
    doubled_by_thread(a_gpu, b_gpu, np.int32(4), block=(4, 1, 1), grid=(1, 1))
    cuda.memcpy_dtoh(b, b_gpu)  # copies b.nbytes
    clinic.claim("an output array of 3 elements written by 4 threads gives "
                 "incorrect printed results (seed 000, example 2)",
                 "false",
                 "no error, memcpy_dtoh copied b.nbytes = %d bytes, and "
                 "b = %s; the fourth write went past the end of the device "
                 "buffer, unreported" % (b.nbytes, b.tolist()),
                 b.tolist() == [2, 4, 6])


def grid_too_small(doubled):
    """Example 3 as the question writes it: one block of 16 threads for 1024
    elements."""
    a = np.arange(N, dtype=np.int32)
    b = np.zeros_like(a)
    a_gpu = cuda.mem_alloc(a.nbytes)
    b_gpu = cuda.mem_alloc(b.nbytes)
    cuda.memcpy_htod(a_gpu, a)
    # Not in the question: zero the output, so that the elements no thread
    # writes read the same on every run instead of whatever memory held.
    cuda.memset_d32(b_gpu, 0, N)
    doubled(a_gpu, b_gpu, np.int32(a.size), block=(16, 1, 1), grid=(1, 1))
    cuda.memcpy_dtoh(b, b_gpu)
    wrong = clinic.count_wrong(b, 2 * a)
    first_wrong = int(np.flatnonzero(b != 2 * a)[0]) if wrong else -1
    clinic.claim("block=(16, 1, 1) with grid=(1, 1) processes only part of "
                 "1024 elements (seed 000, example 3)",
                 "true",
                 "%d of %d elements wrong, the first at [%d]"
                 % (wrong, N, first_wrong),
                 wrong == N - 16 and first_wrong == 16)


def allocation_failure():
    """The advice to pair each allocation with an error check, tried in
    PyCUDA."""
    raised = None
    try:
        cuda.mem_alloc(1 << 40)  # 1 TiB: more than any GPU has
    except cuda.Error as e:
        raised = e
    builtin = issubclass(cuda.MemoryError, MemoryError)
    clinic.claim("a failed device allocation goes unnoticed without an "
                 "explicit error check (seed 000)",
                 "false in PyCUDA",
                 "mem_alloc of 1 TiB raised %s (a subclass of Python's "
                 "MemoryError: %s)"
                 % (clinic.error_text(raised) if raised else "nothing",
                    builtin),
                 isinstance(raised, cuda.MemoryError) and not builtin)


def run():
    module = SourceModule(KERNELS, include_dirs=[clinic.COMMON])
    without_synchronize(module.get_function("slow_add"))
    on_nonblocking_stream(module.get_function("slow_add"))
    output_too_small(module.get_function("doubled_by_thread"))
    grid_too_small(module.get_function("doubled"))
    allocation_failure()
    return clinic.claims_exit_code()


sys.exit(clinic.main(run))
