/**
 * \file fixed.cu
 * \brief Chapter 09, fixed: the host waits for the stream, and so for the
 *        cudaMemcpyAsync() copy, before it reads the pinned buffer.
 */
#include <dlfcn.h>
#include <cuda.h> /* driver API types only: the function is looked up at run time */
#include "check_cuda.h"

#define N 1024
#define SPIN_NS 200000000ull /* 200 ms: far longer than it takes to issue a copy */

/* Busy-waits SPIN_NS on the GPU's nanosecond clock, then writes out[i] = i + 1. */
__global__ void slow_fill(int *out, int n)
{
    unsigned long long start, now;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < SPIN_NS);
    if (i < n)
        out[i] = i + 1;
}

/* PyCUDA's memcpy_dtoh() is the driver's cuMemcpyDtoH(). It is fetched from the
   driver library at run time, so the program still starts where there is no driver. */
typedef CUresult (*memcpy_dtoh_fn)(void *dst, CUdeviceptr src, size_t bytes);

/* What PyCUDA does for f(dev, ...) then memcpy_dtoh(a, dev): a launch on stream 0,
   the legacy default stream, then the synchronous driver copy, with no synchronize. */
static size_t pycuda_way(int *dev, const int *want)
{
    int pageable[N];
    void *driver = dlopen("libcuda.so.1", RTLD_NOW);
    memcpy_dtoh_fn dtoh = driver ? (memcpy_dtoh_fn)dlsym(driver, "cuMemcpyDtoH_v2") : NULL;
    if (dtoh == NULL) {
        fprintf(stderr, "cannot find cuMemcpyDtoH in libcuda.so.1\n");
        exit(CLINIC_EXIT_CUDA_ERROR);
    }
    check_cuda(cudaMemset(dev, 0, N * sizeof(int)));
    slow_fill<<<N / 256, 256>>>(dev, N);
    check_launch();
    if (dtoh(pageable, (CUdeviceptr)dev, N * sizeof(int)) != CUDA_SUCCESS) {
        fprintf(stderr, "cuMemcpyDtoH failed\n");
        exit(CLINIC_EXIT_CUDA_ERROR);
    }
    dlclose(driver);
    return check_ints("kernel on stream 0, then cuMemcpyDtoH", pageable, want, N);
}

int main(void)
{
    int want[N];
    int *dev = NULL, *pinned = NULL;
    cudaStream_t s;
    size_t wrong;

    require_gpu_or_skip();
    check_cuda(cudaMalloc((void **)&dev, N * sizeof(int)));
    check_cuda(cudaMallocHost((void **)&pinned, N * sizeof(int))); /* page-locked */
    check_cuda(cudaStreamCreate(&s));
    for (int i = 0; i < N; i++) {
        pinned[i] = -1; /* a marker: any -1 left over was never copied back */
        want[i] = i + 1;
    }

    wrong = pycuda_way(dev, want); /* no wait needed: prints 0 wrong */

    slow_fill<<<N / 256, 256, 0, s>>>(dev, N);
    check_launch();
    check_cuda(cudaMemcpyAsync(pinned, dev, N * sizeof(int), cudaMemcpyDeviceToHost, s));
    /* FIX: into pinned memory cudaMemcpyAsync() only queues the copy behind the
       kernel and returns at once: wait for the stream before reading pinned. */
    check_cuda(cudaStreamSynchronize(s));
    wrong += check_ints("pinned buffer after cudaMemcpyAsync", pinned, want, N);

    check_cuda(cudaStreamDestroy(s));
    check_cuda(cudaFreeHost(pinned));
    check_cuda(cudaFree(dev));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
