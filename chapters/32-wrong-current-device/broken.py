"""broken.py -- Chapter 32, PyCUDA twin of broken.cu: the buffer is allocated
while device 0's context is current, so it lands on device 0, and the kernel
that fills it runs in device 1's context, which was never given access to
device 0's memory."""
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
WORK_DEVICE = 1  # the device the work is meant for, by index
CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9  # from cuda.h

KERNEL = """
/* out[i] = i + 1 for every i < n. */
__global__ void fill(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i + 1;
}
"""


def device_of(dev_ptr):
    """The device a pointer was allocated on, asked of the driver with
    cuPointerGetAttribute() (PyCUDA has no wrapper for it), as the C
    programs ask cudaPointerGetAttributes()."""
    ordinal = ctypes.c_int(-1)
    driver = ctypes.CDLL("libcuda.so.1")
    status = driver.cuPointerGetAttribute(
        ctypes.byref(ordinal), CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        ctypes.c_uint64(int(dev_ptr)))
    if status != 0:
        raise RuntimeError("cuPointerGetAttribute failed: %d" % status)
    return ordinal.value


def run():
    want = np.arange(1, N + 1, dtype=np.int32)
    out = np.zeros(N, dtype=np.int32)
    # The primary context, the one the runtime API uses for the device.
    ctx_work = cuda.Device(WORK_DEVICE).retain_primary_context()

    # BUG: device 0's context is current (as after pycuda.autoinit), so
    # mem_alloc() allocates on device 0, not on the device the kernel runs
    # on, whose context is made current only afterwards.
    ctx0 = cuda.Device(0).retain_primary_context()
    ctx0.push()
    dev_out = cuda.mem_alloc(out.nbytes)
    cuda.memset_d32(dev_out, 0, N)
    cuda.Context.pop()
    ctx_work.push()
    try:
        fill = SourceModule(KERNEL).get_function("fill")
        print("buffer allocated on device %d, kernel launched on device %d"
              % (device_of(dev_out), WORK_DEVICE))
        fill(dev_out, np.int32(N), block=(256, 1, 1), grid=(N // 256, 1))
        cuda.Context.synchronize()
        cuda.memcpy_dtoh(out, dev_out)
        dev_out.free()
    finally:
        cuda.Context.pop()

    wrong = clinic.check_ints("out", out, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
