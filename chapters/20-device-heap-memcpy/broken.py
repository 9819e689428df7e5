"""broken.py -- Chapter 20, PyCUDA twin of broken.cu: a kernel leaves its
results in memory from in-kernel malloc() and hands that pointer to the host,
whose memcpy_dtoh refuses it; the error is not sticky."""
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

KERNELS = r"""
__global__ void squares_on_heap(int **slot, int n)
{
    __shared__ int *scratch;
    int i = threadIdx.x;
    if (i == 0) {
        scratch = (int *)malloc(n * sizeof(int));
        *slot = scratch;
    }
    __syncthreads();
    if (scratch == NULL)
        return;
    if (i < n)
        scratch[i] = i * i;
}

__global__ void free_on_heap(int *block)
{
    free(block);
}
"""


def step(what, call):
    """Runs call() and prints `what: ok` or the PyCUDA error it raised, and
    carries on, like step() in broken.cu. Returns 1 if it failed."""
    try:
        call()
    except cuda.Error as e:
        print("%s: %s" % (what, clinic.error_text(e)))
        return 1
    print("%s: ok" % what)
    return 0


def run():
    result = np.full(N, -1, dtype=np.int32)  # -1: never copied back
    want = np.arange(N, dtype=np.int32) ** 2
    module = SourceModule(KERNELS)
    squares_on_heap = module.get_function("squares_on_heap")
    free_on_heap = module.get_function("free_on_heap")

    slot = cuda.mem_alloc(8)  # where the kernel leaves the heap pointer
    squares_on_heap(slot, np.int32(N), block=(N, 1, 1), grid=(1, 1))
    heap_slot = np.zeros(1, dtype=np.uint64)
    cuda.memcpy_dtoh(heap_slot, slot)
    heap = int(heap_slot[0])
    print("heap pointer from the kernel: %s"
          % ("not NULL" if heap != 0 else "NULL"))

    # BUG: the heap pointer is passed to memcpy_dtoh as if it were the result
    # buffer. No driver call accepts device-heap memory: cuMemcpyDtoH refuses
    # it.
    failed = step("memcpy_dtoh from the heap pointer",
                  lambda: cuda.memcpy_dtoh(result, heap))
    fresh = cuda.mem_alloc(result.nbytes)  # raises if the error is sticky
    print("mem_alloc of a new buffer: ok")
    failed += step("memcpy_htod into the new buffer",
                   lambda: cuda.memcpy_htod(fresh, want))
    fresh.free()
    wrong = clinic.check_ints("squares", result, want)

    # the heap block lives until device code frees it
    free_on_heap(np.uintp(heap), block=(1, 1, 1), grid=(1, 1))
    cuda.Context.synchronize()
    slot.free()
    if failed:
        return clinic.EXIT_CUDA_ERROR
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
