/**
 * \file fixed.cu
 * \brief Chapter 09, fixed: the host waits for the stream, and so for the
 *        cudaMemcpyAsync() copy, before it reads the pinned buffer.
 */
#include <cudaTypedefs.h> /* the driver API's function types */
#include "check_cuda.h"
#include "clinic_wait.cuh"

#define N 1024
#define SPIN_NS                                                                \
    200000000ull /* 200 ms: far longer than it takes to issue a copy */

/* Keeps the GPU busy for SPIN_NS (see clinic_wait.cuh), then writes
   out[i] = i + 1. */
__global__ void slow_fill(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    clinic_gpu_wait_ns(SPIN_NS);
    if (i < n)
        out[i] = i + 1;
}

/* What PyCUDA does for f(dev, ...) then memcpy_dtoh(a, dev): a launch on
   stream 0, the legacy default stream, then the driver API's synchronous
   cuMemcpyDtoH(), with no synchronize. The runtime hands out the driver's
   function, so the program needs no driver library at link time. */
static size_t pycuda_way(int *dev, const int *want)
{
    int pageable[N];
    PFN_cuMemcpyDtoH_v3020 dtoh = NULL; /* its type since CUDA 3.2 */

    check_cuda(cudaGetDriverEntryPointByVersion(
        "cuMemcpyDtoH", (void **)&dtoh, 12000, cudaEnableDefault, NULL));
    check_cuda(cudaMemset(dev, 0, N * sizeof(int)));
    slow_fill<<<N / 256, 256>>>(dev, N);
    check_launch();
    if (dtoh == NULL || dtoh(pageable, (CUdeviceptr)dev, sizeof pageable)) {
        fprintf(stderr, "cuMemcpyDtoH failed\n");
        exit(CLINIC_EXIT_CUDA_ERROR);
    }
    return check_ints("kernel on stream 0, then cuMemcpyDtoH", pageable, want,
                      N);
}

int main(void)
{
    int want[N];
    int *dev = NULL, *pinned = NULL;
    cudaStream_t s;
    size_t wrong;

    require_gpu_or_skip();
    check_cuda(cudaMalloc((void **)&dev, N * sizeof(int)));
    /* page-locked */
    check_cuda(cudaMallocHost((void **)&pinned, N * sizeof(int)));
    check_cuda(cudaStreamCreate(&s));
    for (int i = 0; i < N; i++) {
        pinned[i] = -1; /* a marker: any -1 left over was never copied back */
        want[i] = i + 1;
    }

    wrong = pycuda_way(dev, want); /* no wait needed: prints 0 wrong */

    slow_fill<<<N / 256, 256, 0, s>>>(dev, N);
    check_launch();
    check_cuda(cudaMemcpyAsync(pinned, dev, N * sizeof(int),
                               cudaMemcpyDeviceToHost, s));
    /* FIX: into pinned memory cudaMemcpyAsync() only queues the copy behind the
       kernel and returns at once: wait for the stream before reading pinned. */
    check_cuda(cudaStreamSynchronize(s));
    wrong += check_ints("pinned buffer after cudaMemcpyAsync", pinned, want, N);

    check_cuda(cudaStreamDestroy(s));
    check_cuda(cudaFreeHost(pinned));
    check_cuda(cudaFree(dev));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
