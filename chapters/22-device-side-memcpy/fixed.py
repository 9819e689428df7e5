"""fixed.py -- Chapter 22, PyCUDA twin of fixed.cu: the kernel moves its results
out of the device-heap scratch array with plain memcpy(), which device code may
call."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 256

# FIX: inside a kernel a copy is plain memory access: memcpy() (or a loop) is
# compiled for the GPU and runs in this thread, done when it returns.
KERNEL = r"""
__global__ void squares_via_scratch(int *out, int n)
{
    int *scratch = (int *)malloc(n * sizeof(int));
    if (scratch == NULL)
        return;
    for (int i = 0; i < n; i++)
        scratch[i] = i * i;
    memcpy(out, scratch, n * sizeof(int));
    free(scratch);
}
"""


def run():
    host = np.empty(N, dtype=np.int32)
    want = np.arange(N, dtype=np.int32) ** 2
    try:
        module = SourceModule(KERNEL)
    except cuda.CompileError as e:
        # str(e) names a temporary folder; nvcc's own error lines do not.
        print("SourceModule raised pycuda.driver.%s; nvcc said:"
              % type(e).__name__)
        for line in (e.stderr or "").splitlines():
            if ": error: " in line:
                print(line)
        return clinic.EXIT_CUDA_ERROR
    squares_via_scratch = module.get_function("squares_via_scratch")

    out = cuda.mem_alloc(host.nbytes)
    cuda.memset_d32(out, 0xFFFFFFFF, N)  # -1: the kernel never wrote it
    squares_via_scratch(out, np.int32(N), block=(1, 1, 1), grid=(1, 1))
    cuda.memcpy_dtoh(host, out)
    out.free()
    wrong = clinic.check_ints("squares", host, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
