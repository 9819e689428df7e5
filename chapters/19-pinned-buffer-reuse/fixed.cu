/**
 * \file fixed.cu
 * \brief Chapter 19, fixed: two pinned staging buffers, and an event recorded
 *        after each copy that the host waits for before it refills that buffer,
 *        so every batch on the device holds its own data.
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
    int *staging[2] = {NULL, NULL}, *dev = NULL;
    cudaEvent_t copied[2]; /* copied[k]: the last copy from staging[k] has run */
    int *result = (int *)malloc(BATCHES * N * sizeof(int));
    int *want = (int *)malloc(BATCHES * N * sizeof(int));
    cudaStream_t s;
    size_t wrong = 0;
    char name[32];

    require_gpu_or_skip();
    for (int b = 0; b < BATCHES; b++)
        fill_batch(want + b * N, b);
    for (int k = 0; k < 2; k++) {
        check_cuda(cudaMallocHost((void **)&staging[k], N * sizeof(int))); /* page-locked */
        check_cuda(cudaEventCreate(&copied[k]));
    }
    check_cuda(cudaMalloc((void **)&dev, BATCHES * N * sizeof(int)));
    check_cuda(cudaStreamCreate(&s));

    busy_wait<<<1, 1, 0, s>>>(); /* queued first: every copy below waits behind it */
    check_launch();
    for (int b = 0; b < BATCHES; b++) {
        int k = b % 2;
        /* FIX: a copy reads its buffer only when its turn on the stream comes.
           Before refilling staging[k], wait until the copy that last read it has
           run; meanwhile the other buffer's copy can stay queued. */
        if (b >= 2)
            check_cuda(cudaEventSynchronize(copied[k]));
        fill_batch(staging[k], b);
        check_cuda(cudaMemcpyAsync(dev + b * N, staging[k], N * sizeof(int),
                                   cudaMemcpyHostToDevice, s));
        check_cuda(cudaEventRecord(copied[k], s));
    }
    check_cuda(cudaStreamSynchronize(s));

    check_cuda(cudaMemcpy(result, dev, BATCHES * N * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < BATCHES; b++) {
        snprintf(name, sizeof name, "batch %d", b);
        wrong += check_ints(name, result + b * N, want + b * N, N);
    }

    check_cuda(cudaStreamDestroy(s));
    check_cuda(cudaFree(dev));
    for (int k = 0; k < 2; k++) {
        check_cuda(cudaEventDestroy(copied[k]));
        check_cuda(cudaFreeHost(staging[k]));
    }
    free(want);
    free(result);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
