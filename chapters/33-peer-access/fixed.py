"""fixed.py -- Chapter 33, PyCUDA twin of fixed.cu: the input is first
copied from device 0 into device 1's own memory, and the kernel on device 1
reads that copy. The copy goes through the host (README, "PyCUDA": PyCUDA's
memcpy_peer() is not used, and why)."""
import ctypes
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpus_or_skip(2)

import numpy as np
import pycuda.driver as cuda  # no autoinit: this twin picks its contexts
from pycuda.compiler import SourceModule

N = 1024
CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9  # from cuda.h

KERNEL = """
/* out[i] = 2 * in[i] for every i < n. */
__global__ void twice(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2 * in[i];
}
"""


def print_placement(dev_ptr, kernel_device):
    """print_placement() of the C programs: the device the pointer was allocated
    on, asked of the driver (cuPointerGetAttribute; PyCUDA has no wrapper
    for it), and the device the kernel runs on."""
    ordinal = ctypes.c_int(-1)
    driver = ctypes.CDLL("libcuda.so.1")
    status = driver.cuPointerGetAttribute(
        ctypes.byref(ordinal), CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        ctypes.c_uint64(int(dev_ptr)))
    if status != 0:
        raise RuntimeError("cuPointerGetAttribute failed: %d" % status)
    print("kernel input on device %d, kernel on device %d"
          % (ordinal.value, kernel_device))


def run():
    values = np.arange(1, N + 1, dtype=np.int32)
    want = 2 * values
    out = np.zeros(N, dtype=np.int32)
    # The primary contexts, the ones the runtime API uses for each device.
    ctx0 = cuda.Device(0).retain_primary_context()
    ctx1 = cuda.Device(1).retain_primary_context()

    # Device 0 holds the input, as if an earlier step had made it there.
    ctx0.push()
    dev_in0 = cuda.mem_alloc(values.nbytes)
    cuda.memcpy_htod(dev_in0, values)
    # FIX: first bring the input to the host, from device 0's context;
    # the second half puts it into device 1's own memory.
    staged = np.empty_like(values)
    cuda.memcpy_dtoh(staged, dev_in0)
    cuda.Context.pop()

    # Device 1 doubles it into a buffer of its own.
    ctx1.push()
    try:
        twice = SourceModule(KERNEL).get_function("twice")
        dev_out1 = cuda.mem_alloc(out.nbytes)
        cuda.memset_d32(dev_out1, 0, N)
        # FIX: give the kernel a copy in device 1's own memory.
        dev_in1 = cuda.to_device(staged)
        print_placement(dev_in1, 1)
        twice(dev_in1, dev_out1, np.int32(N), block=(256, 1, 1),
              grid=(N // 256, 1))
        cuda.Context.synchronize()
        cuda.memcpy_dtoh(out, dev_out1)
        dev_in1.free()
        dev_out1.free()
    finally:
        cuda.Context.pop()
    dev_in0.free()  # PyCUDA makes its context current for the free

    wrong = clinic.check_ints("out", out, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
