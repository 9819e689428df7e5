"""broken.py -- Chapter 28, PyCUDA twin of broken.cu: the kernel is compiled
to real code for sm_75 only, with no PTX, so a newer GPU has no code to run.
PyCUDA checks every driver call, so here the failure is not silent: loading
the module raises."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 8  # elements

KERNEL = """
__constant__ int offset = 1; // what add_offset adds; the host may change it

__global__ void add_offset(int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] += offset;
}
"""


def values(what, array):
    return "%s: %s" % (what, " ".join(str(int(v)) for v in array))


def add_on_gpu(add_offset, dev, data, expected):
    """Copies data to the GPU, runs add_offset there, copies the result back
    and compares it with data + expected. Returns the number wrong."""
    out = np.empty_like(data)
    cuda.memcpy_htod(dev, data)
    add_offset(dev, np.int32(N), block=(N, 1, 1), grid=(1, 1))
    cuda.memcpy_dtoh(out, dev)
    print(values("out (offset %d)" % expected, out))
    return clinic.check_ints("out", out, data + expected)


def run():
    # BUG: only sm_75 code (below): a 7.5 GPU runs it, so skip.
    if cuda.Context.get_device().compute_capability() == (7, 5):
        clinic.skip("this GPU (compute capability 7.5) runs the sm_75 code "
                    "broken was built for: the bug cannot show")
    data = np.arange(1, N + 1, dtype=np.int32)
    new_offset = np.array([100], dtype=np.int32)
    dev = cuda.mem_alloc(data.nbytes)
    print(values("in", data))

    # BUG: real code for sm_75 only, no PTX: nvcc -cubin -arch sm_75.
    module = SourceModule(KERNEL, arch="sm_75")
    add_offset = module.get_function("add_offset")
    wrong = add_on_gpu(add_offset, dev, data, 1)  # the offset of the build
    # A __constant__ is found by its name: get_global gives its address.
    cuda.memcpy_htod(module.get_global("offset")[0], new_offset)
    wrong += add_on_gpu(add_offset, dev, data, int(new_offset[0]))
    dev.free()
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
