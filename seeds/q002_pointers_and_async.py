"""q002_pointers_and_async.py -- Seed question 002 (copying GPU arrays to the
CPU through pointers in PyCUDA), its code run: the .ptr attribute, the round
trip of example 1, example 2's stream.record() and memcpy_dtoh_async into a
pageable array, and example 3's structured array.

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

SIZE = 1024       # example 1's array
ASYNC_SIZE = 2 ** 20  # example 2's array
RECORDS = 256     # example 3's structs

KERNEL = """
#include "clinic_wait.cuh"

#define SPIN_NS 200000000ull /* 200 ms: far longer than issuing a copy takes */

/* Waits SPIN_NS on the GPU's clock, then writes out[i] = i + 1, so that a
   copy queued behind it cannot run for 200 ms. */
__global__ void slow_fill(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    clinic_gpu_wait_ns(SPIN_NS);
    if (i < n)
        out[i] = (float)(i + 1);
}
"""


def ptr_attribute():
    """The text's way to get the raw pointer of a DeviceAllocation."""
    gpu_array = cuda.mem_alloc(SIZE * np.int32().nbytes)
    raised = None
    try:
        gpu_array.ptr
    except AttributeError as e:
        raised = e
    address = int(gpu_array)  # what the documentation offers instead
    clinic.claim("a DeviceAllocation's raw device pointer is its .ptr "
                 "attribute (seed 002)",
                 "false",
                 "%s; int(alloc) gives the address as an int: %s"
                 % (clinic.outcome(raised), isinstance(address, int)),
                 raised is not None and isinstance(address, int))


def round_trip():
    """Example 1 as the question writes it: mem_alloc, memcpy_htod,
    memcpy_dtoh."""
    gpu_array = cuda.mem_alloc(SIZE * np.int32().nbytes)
    cpu_source_array = np.arange(SIZE, dtype=np.int32)
    cuda.memcpy_htod(gpu_array, cpu_source_array)
    cpu_target_array = np.zeros(SIZE, dtype=np.int32)
    cuda.memcpy_dtoh(cpu_target_array, gpu_array)
    wrong = clinic.count_wrong(cpu_target_array, cpu_source_array)
    clinic.claim("copying an allocation back takes its raw pointer first "
                 "(seed 002, example 1)",
                 "false",
                 "memcpy_dtoh(host_array, alloc) took the DeviceAllocation "
                 "itself; %d of %d elements wrong" % (wrong, SIZE),
                 wrong == 0)


def stream_record():
    """Example 2's `stream.record()`."""
    stream = cuda.Stream()
    raised = None
    try:
        stream.record()
    except AttributeError as e:
        raised = e
    # PyCUDA's way: the event records itself on a stream.
    event = cuda.Event().record(stream)
    clinic.claim("stream.record() records an event on a stream "
                 "(seed 002, example 2)",
                 "false",
                 "%s; cuda.Event().record(stream) returns the Event: %s"
                 % (clinic.outcome(raised), isinstance(event, cuda.Event)),
                 raised is not None and isinstance(event, cuda.Event))
    event.synchronize()


def async_into_pageable(slow_fill):
    """Example 2's memcpy_dtoh_async into np.zeros memory, queued behind a
    200 ms kernel on the same stream, so that its timing shows."""
    want = np.arange(1, ASYNC_SIZE + 1, dtype=np.float32)
    gpu_array = cuda.mem_alloc(want.nbytes)
    # Pageable, as in the question:
    cpu_target_array = np.zeros(ASYNC_SIZE, dtype=np.float32)
    stream = cuda.Stream()
    cuda.memset_d32(gpu_array, 0, ASYNC_SIZE)
    cuda.Context.synchronize()

    slow_fill(gpu_array, np.int32(ASYNC_SIZE),
              block=(256, 1, 1), grid=(ASYNC_SIZE // 256, 1), stream=stream)
    kernel_end = cuda.Event().record(stream)
    raised = None
    try:
        cuda.memcpy_dtoh_async(cpu_target_array, gpu_array, stream)
    except cuda.Error as e:
        raised = e
    kernel_done_at_return = kernel_end.query()
    wrong_at_return = clinic.count_wrong(cpu_target_array, want)
    stream.synchronize()
    if raised is not None:
        observed = "it raised %s" % clinic.error_text(raised)
    else:
        observed = ("no error; kernel finished when the call returned: %s; "
                    "elements wrong when it returned: %d of %d; so the call "
                    "waited for the kernel and the copy"
                    % (kernel_done_at_return, wrong_at_return, ASYNC_SIZE))
    clinic.claim("memcpy_dtoh_async into a pageable np.zeros array returns "
                 "at once and copies in the background (seed 002, example 2)",
                 "false",
                 observed,
                 raised is None and kernel_done_at_return
                 and wrong_at_return == 0)


def async_into_pinned(slow_fill):
    """The same copy into page-locked memory, as PyCUDA's documentation asks."""
    want = np.arange(1, ASYNC_SIZE + 1, dtype=np.float32)
    gpu_array = cuda.mem_alloc(want.nbytes)
    cpu_target_array = cuda.pagelocked_zeros(ASYNC_SIZE, np.float32)
    stream = cuda.Stream()
    cuda.memset_d32(gpu_array, 0, ASYNC_SIZE)
    cuda.Context.synchronize()

    slow_fill(gpu_array, np.int32(ASYNC_SIZE),
              block=(256, 1, 1), grid=(ASYNC_SIZE // 256, 1), stream=stream)
    cuda.memcpy_dtoh_async(cpu_target_array, gpu_array, stream)
    wrong_at_return = clinic.count_wrong(cpu_target_array, want)
    stream.synchronize()
    wrong_after_wait = clinic.count_wrong(cpu_target_array, want)
    clinic.claim("memcpy_dtoh_async returns at once, before the copy has run "
                 "(seed 002, example 2)",
                 "true with a page-locked destination",
                 "into pagelocked_zeros memory, right after the call %d of %d "
                 "elements were wrong (still 0); after stream.synchronize() "
                 "%d were wrong"
                 % (wrong_at_return, ASYNC_SIZE, wrong_after_wait),
                 wrong_at_return == ASYNC_SIZE and wrong_after_wait == 0)


def structured_round_trip():
    """Example 3 as the question writes it: a structured array of three
    floats."""
    dtype = np.dtype([("x", np.float32), ("y", np.float32), ("z", np.float32)])
    cpu_source_array = np.empty(RECORDS, dtype=dtype)
    cpu_source_array["x"] = np.arange(RECORDS)
    cpu_source_array["y"] = 2 * np.arange(RECORDS)
    cpu_source_array["z"] = 3 * np.arange(RECORDS)
    gpu_array = cuda.mem_alloc(cpu_source_array.nbytes)
    cuda.memcpy_htod(gpu_array, cpu_source_array)
    cpu_target_array = np.empty(RECORDS, dtype=dtype)
    cuda.memcpy_dtoh(cpu_target_array, gpu_array)
    equal = int(np.count_nonzero(cpu_source_array == cpu_target_array))
    clinic.claim("a structured array comes back intact through memcpy_htod "
                 "and memcpy_dtoh when both arrays have the same dtype "
                 "(seed 002, example 3)",
                 "true",
                 "%d of %d records equal" % (equal, RECORDS),
                 equal == RECORDS)


def run():
    module = SourceModule(KERNEL, include_dirs=[clinic.COMMON])
    slow_fill = module.get_function("slow_fill")
    ptr_attribute()
    round_trip()
    stream_record()
    async_into_pageable(slow_fill)
    async_into_pinned(slow_fill)
    structured_round_trip()
    return clinic.claims_exit_code()


sys.exit(clinic.main(run))
