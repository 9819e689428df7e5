/**
 * \file fixed.cu
 * \brief Chapter 08, fixed: the host waits for the kernel's non-blocking
 *        stream before the plain cudaMemcpy(), so every result comes back.
 */
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

/* Zeros dev, then starts slow_fill on stream s (0 is the legacy default
   stream). */
static void start_slow_fill(int *dev, cudaStream_t s)
{
    check_cuda(cudaMemset(dev, 0, N * sizeof(int)));
    /* the zeros are in place before any stream starts */
    check_cuda(cudaDeviceSynchronize());
    slow_fill<<<N / 256, 256, 0, s>>>(dev, N);
    check_launch();
}

/* Call right after the copy: says whether the kernel on s had finished, checks
   host. */
static size_t report(const char *name, const int *host, cudaStream_t s)
{
    int want[N];
    size_t wrong;
    /* cudaSuccess: the kernel had finished; cudaErrorNotReady: it was still
       running */
    printf("%s: after the copy, cudaStreamQuery: %s\n", name,
           cudaGetErrorName(cudaStreamQuery(s)));
    for (int i = 0; i < N; i++)
        want[i] = i + 1;
    wrong = check_ints(name, host, want, N);
    /* the kernel ends before dev is zeroed or freed */
    check_cuda(cudaStreamSynchronize(s));
    return wrong;
}

int main(void)
{
    int host[N];
    int *dev = NULL;
    cudaStream_t blocking, nonblocking;
    size_t wrong = 0;

    require_gpu_or_skip();
    check_cuda(cudaMalloc((void **)&dev, N * sizeof(int)));
    check_cuda(cudaStreamCreate(&blocking)); /* flags 0: a blocking stream */
    check_cuda(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));

    /* A plain cudaMemcpy() goes to the legacy default stream, which waits for
       its own work and for every blocking stream: no synchronize needed. */
    start_slow_fill(dev, 0);
    check_cuda(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
    wrong += report("legacy default stream", host, 0);
    start_slow_fill(dev, blocking);
    check_cuda(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
    wrong += report("blocking stream", host, blocking);

    start_slow_fill(dev, nonblocking);
    /* FIX: the legacy default stream does not wait for a non-blocking stream,
       so the host waits for that stream, and so for the kernel, first. */
    check_cuda(cudaStreamSynchronize(nonblocking));
    check_cuda(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
    wrong += report("non-blocking stream", host, nonblocking);

    check_cuda(cudaStreamDestroy(nonblocking));
    check_cuda(cudaStreamDestroy(blocking));
    check_cuda(cudaFree(dev));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
