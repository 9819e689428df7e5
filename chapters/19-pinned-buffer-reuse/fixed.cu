/**
 * \file fixed.cu
 * \brief Chapter 19, fixed: before it refills a pinned staging buffer, the
 *        host waits for the event recorded after the copy that last read it,
 *        so every batch on the device holds its own data.
 */
#include "check_cuda.h"
#include "clinic_wait.cuh"

#define BATCHES 4
#define N (1 << 18)          /* ints per batch: 1 MiB */
#define SPIN_NS 100000000ull /* 100 ms: far longer than filling every batch */

/* Keeps the GPU busy for SPIN_NS (see clinic_wait.cuh). It stands for the
   work still running on the stream when the copies are queued behind it. */
__global__ void busy_wait(void)
{
    clinic_gpu_wait_ns(SPIN_NS);
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
    cudaEvent_t copied[2]; /* copied[k]: staging[k]'s last copy has run */
    int *result = (int *)checked_malloc(BATCHES * N * sizeof(int));
    int *want = (int *)checked_malloc(BATCHES * N * sizeof(int));
    cudaStream_t s;
    size_t wrong = 0;
    char name[32];

    require_gpu_or_skip();
    for (int b = 0; b < BATCHES; b++)
        fill_batch(want + b * N, b);
    for (int k = 0; k < 2; k++) {
        check_cuda(cudaMallocHost((void **)&staging[k], N * sizeof(int)));
        check_cuda(cudaEventCreate(&copied[k]));
    }
    check_cuda(cudaMalloc((void **)&dev, BATCHES * N * sizeof(int)));
    check_cuda(cudaStreamCreate(&s));

    busy_wait<<<1, 1, 0, s>>>(); /* queued first: every copy waits behind it */
    check_launch();
    for (int b = 0; b < BATCHES; b++) {
        int k = b % 2; /* fill one buffer while the other's copy waits */
        /* FIX: a copy reads its buffer only when its turn on the stream comes.
           Wait until the copy that last read staging[k] has run. */
        if (b >= 2)
            check_cuda(cudaEventSynchronize(copied[k]));
        fill_batch(staging[k], b);
        check_cuda(cudaMemcpyAsync(dev + b * N, staging[k], N * sizeof(int),
                                   cudaMemcpyHostToDevice, s));
        check_cuda(cudaEventRecord(copied[k], s));
    }
    for (int k = 0; k < 2; k++) /* the last copies ran: staging may be freed */
        check_cuda(cudaEventSynchronize(copied[k]));

    check_cuda(cudaMemcpy(result, dev, BATCHES * N * sizeof(int),
                          cudaMemcpyDeviceToHost));
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
