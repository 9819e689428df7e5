/**
 * \file broken.cu
 * \brief Chapter 19, broken: the host refills a pinned staging buffer while the
 *        cudaMemcpyAsync() that reads it is still queued, so every batch on the
 *        device holds the last batch's data.
 */
#include "check_cuda.h"

#define BATCHES 4
#define N (1 << 18)             /* ints per batch: 1 MiB */
#define SPIN_NS 100000000ull    /* 100 ms: far longer than it takes to fill every batch */

/* Busy-waits SPIN_NS on the GPU's nanosecond clock. It stands for the work that
   is still running on the stream when the copies are queued behind it. */
__global__ void busy_wait(void)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < SPIN_NS);
}

/* Batch b holds the numbers b * N to b * N + N - 1, so every batch differs. */
static void fill_batch(int *buf, int b)
{
    for (int i = 0; i < N; i++)
        buf[i] = b * N + i;
}

int main(void)
{
    int *staging = NULL, *dev = NULL;
    int *result = (int *)malloc(BATCHES * N * sizeof(int));
    int *want = (int *)malloc(BATCHES * N * sizeof(int));
    cudaStream_t s;
    size_t wrong = 0;
    char name[32];

    require_gpu_or_skip();
    for (int b = 0; b < BATCHES; b++)
        fill_batch(want + b * N, b);
    check_cuda(cudaMallocHost((void **)&staging, N * sizeof(int))); /* page-locked */
    check_cuda(cudaMalloc((void **)&dev, BATCHES * N * sizeof(int)));
    check_cuda(cudaStreamCreate(&s));

    busy_wait<<<1, 1, 0, s>>>(); /* queued first: every copy below waits behind it */
    check_launch();
    for (int b = 0; b < BATCHES; b++) {
        /* BUG: the copy queued for the previous batch has not run yet: it only
           reads staging when its turn on the stream comes. Refilling staging now
           replaces the data that copy is still waiting to read. */
        fill_batch(staging, b);
        check_cuda(cudaMemcpyAsync(dev + b * N, staging, N * sizeof(int),
                                   cudaMemcpyHostToDevice, s));
    }
    check_cuda(cudaStreamSynchronize(s));

    check_cuda(cudaMemcpy(result, dev, BATCHES * N * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < BATCHES; b++) {
        snprintf(name, sizeof name, "batch %d", b);
        wrong += check_ints(name, result + b * N, want + b * N, N);
    }

    check_cuda(cudaStreamDestroy(s));
    check_cuda(cudaFree(dev));
    check_cuda(cudaFreeHost(staging));
    free(want);
    free(result);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
