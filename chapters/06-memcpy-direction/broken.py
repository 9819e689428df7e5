"""broken.py -- Chapter 06, PyCUDA twin of broken.cu: memcpy_dtoh() gets its
destination and source swapped. PyCUDA refuses both read-backs, the pageable
and the pinned one, before any copy is made."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 1000

KERNEL = """
/* Writes out[i] = i + 1 for every i < n. */
__global__ void count_up(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i + 1;
}
"""


def report(what, copy):
    """Runs one copy and prints `ok` or the exception it raised; returns 1 if
    it raised. The error is printed rather than ending the program, so that
    both read-backs can be seen."""
    try:
        copy()
    except (cuda.Error, TypeError) as e:
        print("%s copy: %s" % (what, clinic.error_text(e)))
        return 1
    print("%s copy: ok" % what)
    return 0


def run():
    count_up = SourceModule(KERNEL).get_function("count_up")
    pageable = np.full(N, -1, dtype=np.int32)  # ordinary (pageable) memory
    pinned = cuda.pagelocked_empty(N, np.int32)  # page-locked host memory
    pinned[:] = -1  # a marker: any -1 left over was never copied back
    want = np.arange(1, N + 1, dtype=np.int32)
    dev = cuda.mem_alloc(pageable.nbytes)

    count_up(dev, np.int32(N), block=(256, 1, 1), grid=((N + 255) // 256, 1))

    # The results are read back into both kinds of host memory, pageable and
    # pinned, with the same call, as in the C program.
    # BUG: destination and source are swapped. memcpy_dtoh() takes the
    # destination first, like memcpy(): the host buffer, then the device one.
    bad = report("pageable", lambda: cuda.memcpy_dtoh(dev, pageable))
    bad += clinic.check_ints("pageable", pageable, want)

    # BUG: the same swap
    bad += report("pinned", lambda: cuda.memcpy_dtoh(dev, pinned))
    bad += clinic.check_ints("pinned", pinned, want)

    dev.free()
    return clinic.EXIT_WRONG_RESULT if bad else clinic.EXIT_OK


sys.exit(clinic.main(run))
