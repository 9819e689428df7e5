"""fixed.py -- Chapter 17, PyCUDA twin of fixed.cu: a deep copy. The array is
copied to the device first, and the struct sent to the kernel holds that device
address, so every call succeeds and every result is right."""
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

# The C struct {const int *values; int count;} as NumPy sees it: an 8-byte
# address, then the count. align=True adds the trailing padding the C compiler
# adds, so the record is 16 bytes as in C (chapter 16).
INT_ARRAY = np.dtype([("values", np.uintp), ("count", np.int32)], align=True)

KERNEL = r"""
/* An array and its length, passed around as one thing. */
typedef struct {
    const int *values; /* N ints: must be an address the GPU can read */
    int count;
} int_array;

/* Writes out[i] = 2 * values[i] for every element of the array *in. */
__global__ void doubled(const int_array *in, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < in->count)
        out[i] = 2 * in->values[i];
}
"""

failed_steps = []


def step(what, call):
    """Runs one PyCUDA call and prints what it did, carrying on after an error
    so the output shows where the error appears and how far it reaches."""
    try:
        result = call()
    except cuda.Error as e:
        print("%-31s %s" % (what, clinic.error_text(e)))
        failed_steps.append(what)
        return None
    print("%-31s %s" % (what, "ok"))
    return result


def gpu_reads_pageable_memory():
    """True where the GPU may read malloc() memory (HMM or ATS)."""
    attribute = getattr(cuda.device_attribute, "PAGEABLE_MEMORY_ACCESS", None)
    device = pycuda.autoinit.device
    return attribute is not None and device.get_attribute(attribute) != 0


def run():
    if gpu_reads_pageable_memory():
        clinic.skip("this host's GPU can read pageable memory (HMM or ATS), "
                    "so the fault cannot be shown here")
    doubled = SourceModule(KERNEL).get_function("doubled")
    host_values = np.arange(N, dtype=np.int32)
    want = 2 * host_values
    result = np.full(N, -1, dtype=np.int32)  # -1: never copied back
    out = cuda.mem_alloc(result.nbytes)
    dev_array = cuda.mem_alloc(INT_ARRAY.itemsize)

    # FIX: copying the struct copies the pointer, not what it points to. So
    # copy the ints to the device first and put their device address in the
    # struct; then the struct itself can be copied byte for byte.
    dev_values = cuda.mem_alloc(host_values.nbytes)
    cuda.memcpy_htod(dev_values, host_values)
    array = np.zeros(1, dtype=INT_ARRAY)
    array["values"] = int(dev_values)
    array["count"] = N
    cuda.memcpy_htod(dev_array, array)
    step("launch", lambda: doubled(dev_array, out, block=(256, 1, 1),
                                   grid=(N // 256, 1)))
    step("Context.synchronize", cuda.Context.synchronize)
    fresh = step("mem_alloc of a new buffer",
                 lambda: cuda.mem_alloc(result.nbytes))
    step("memcpy_dtoh of the results", lambda: cuda.memcpy_dtoh(result, out))
    wrong = clinic.check_ints("doubled", result, want)

    # Freeing raises nothing: on a broken context PyCUDA prints a warning to
    # stderr for each allocation it cannot free.
    sys.stdout.flush()
    for dev in (fresh, dev_array, out, dev_values):  # FIX: dev_values too
        if dev is not None:
            dev.free()
    if failed_steps:
        return clinic.EXIT_CUDA_ERROR
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
