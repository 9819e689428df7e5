/**
 * \file broken.cu
 * \brief Chapter 34, broken: the host reads a cudaMallocManaged() buffer
 *        right after launching the kernel that fills it, before it
 *        synchronizes, and sees what the buffer held before the kernel.
 */
#include "check_cuda.h"
#include "clinic_wait.cuh"

#define N 1024 /* ints: 4 KiB of managed memory, no more */
#define SPIN_NS                                                                \
    200000000ull /* 200 ms: far longer than the host takes to read */

/* Keeps the GPU busy for SPIN_NS (see clinic_wait.cuh), then writes
   data[i] = i + 1. */
__global__ void slow_fill(int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    clinic_gpu_wait_ns(SPIN_NS);
    if (i < n)
        data[i] = i + 1;
}

int main(void)
{
    int want[N];
    int *data = NULL;
    int device = -1, concurrent = -1;
    size_t wrong;

    require_gpu_or_skip();
    check_cuda(cudaGetDevice(&device));
    /* 1: the host may touch managed memory while a kernel runs; 0: it
       may not (README, "Where the read faults instead"). */
    check_cuda(cudaDeviceGetAttribute(
        &concurrent, cudaDevAttrConcurrentManagedAccess, device));
    printf("concurrentManagedAccess: %d\n", concurrent);

    check_cuda(cudaMallocManaged((void **)&data, N * sizeof(int),
                                 cudaMemAttachGlobal));
    for (int i = 0; i < N; i++) {
        data[i] = -1; /* a marker: any -1 left was never written by the GPU */
        want[i] = i + 1;
    }

    slow_fill<<<N / 256, 256>>>(data, N);
    check_launch();
    /* BUG: the launch returns at once and nothing has waited for the
       kernel, which is still spinning: the host reads its own markers. */
    wrong = check_ints("host read of the managed buffer", data, want, N);
    check_cuda(cudaDeviceSynchronize()); /* BUG: waits, but too late */

    check_cuda(cudaFree(data));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
