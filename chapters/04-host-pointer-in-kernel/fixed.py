"""fixed.py -- Chapter 04, PyCUDA twin of fixed.cu: the input is copied into
device memory first and the kernel gets that allocation, so every call
succeeds and every result is right."""
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
/* Writes out[i] = 2 * in[i] for every i < n. */
__global__ void doubled(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2 * in[i];
}
"""

failed_steps = []


def step(what, call):
    """Runs one PyCUDA call and prints `ok` or the exception it raised, then
    carries on, so the output shows how far one error reaches."""
    try:
        result = call()
    except cuda.Error as e:
        print("%-31s %s" % (what, clinic.error_text(e)))
        failed_steps.append(what)
        return None
    print("%-31s %s" % (what, "ok"))
    return result


def gpu_reads_pageable_memory():
    """True where the GPU may read pageable host memory (HMM or ATS)."""
    attribute = cuda.device_attribute.PAGEABLE_MEMORY_ACCESS
    return pycuda.autoinit.device.get_attribute(attribute) != 0


def run():
    if gpu_reads_pageable_memory():
        clinic.skip("this host's GPU can read pageable memory (HMM or ATS), "
                    "so the fault cannot be shown here")
    doubled = SourceModule(KERNEL).get_function("doubled")
    host = np.arange(N, dtype=np.int32)
    want = 2 * host
    # A marker: any -1 left over was never copied back.
    result = np.full(N, -1, dtype=np.int32)
    out = cuda.mem_alloc(host.nbytes)
    other = cuda.mem_alloc(host.nbytes)

    # FIX: a kernel reads device memory, so copy the input there and pass the
    # kernel the DeviceAllocation, which PyCUDA passes as its device address.
    in_arg = cuda.mem_alloc(host.nbytes)
    cuda.memcpy_htod(in_arg, host)
    grid = ((N + 255) // 256, 1)
    step("launch", lambda: doubled(in_arg, out, np.int32(N),
                                   block=(256, 1, 1), grid=grid))
    step("Context.synchronize", cuda.Context.synchronize)
    step("mem_alloc of a new buffer", lambda: cuda.mem_alloc(host.nbytes))
    step("memcpy_htod into another buffer",
         lambda: cuda.memcpy_htod(other, host))
    step("memcpy_dtoh of the results", lambda: cuda.memcpy_dtoh(result, out))
    wrong = clinic.check_ints("doubled", result, want)

    # free() raises nothing, even on a broken context: there PyCUDA prints a
    # warning and the failed call to stderr instead.
    sys.stdout.flush()
    step("free of the other buffer", other.free)
    step("free of the results", out.free)
    if failed_steps:
        return clinic.EXIT_CUDA_ERROR
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
