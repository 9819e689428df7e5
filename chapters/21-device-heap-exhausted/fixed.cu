/**
 * \file fixed.cu
 * \brief Chapter 21, fixed: the host raises the device heap to 128 MiB before the
 *        first launch of a kernel that uses malloc(), and the kernel checks every
 *        malloc() for NULL and counts the failures: there are none.
 */
#include "check_cuda.h"

#define THREADS 1024     /* one block */
#define SCRATCH_INTS 8192 /* 32 KiB a thread, 32 MiB for the block */
#define HEAP_MIB 128      /* the device heap: the block's 32 MiB with room to spare */

/* Every thread takes a scratch array from the device heap, fills it with its
   own index t, and writes the sum of the array, t * SCRATCH_INTS, to sums[t].
   A thread whose malloc() fails adds 1 to *failures and writes -1 instead. */
__global__ void sum_on_heap(int *sums, int *failures)
{
    int t = threadIdx.x;
    int sum = 0;
    int *scratch = (int *)malloc(SCRATCH_INTS * sizeof(int));
    /* FIX: malloc() returns NULL when the heap cannot serve the request: check
       it, and make a failure visible to the host instead of writing through it. */
    if (scratch == NULL)
        atomicAdd(failures, 1);
    else
        for (int j = 0; j < SCRATCH_INTS; j++)
            scratch[j] = t;
    __syncthreads(); /* here every thread holds its array: 32 MiB at once */
    if (scratch == NULL) {
        sums[t] = -1;
        return;
    }
    for (int j = 0; j < SCRATCH_INTS; j++)
        sum += scratch[j];
    free(scratch);
    sums[t] = sum;
}

int main(void)
{
    int host[THREADS], want[THREADS];
    int *sums = NULL, *failures = NULL;
    int failed = 0;

    require_gpu_or_skip();
    /* FIX: the heap gets its size when the first kernel that uses malloc() is
       launched, and keeps it: set the limit before that launch. */
    check_cuda(cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)HEAP_MIB << 20));
    for (int t = 0; t < THREADS; t++) {
        host[t] = -1; /* a marker: any -1 left over was never copied back */
        want[t] = t * SCRATCH_INTS;
    }
    printf("%d threads, each malloc(%d) in the kernel: %d MiB in all\n", THREADS,
           (int)(SCRATCH_INTS * sizeof(int)), (int)(THREADS * SCRATCH_INTS * sizeof(int) >> 20));

    check_cuda(cudaMalloc((void **)&sums, sizeof host));
    check_cuda(cudaMalloc((void **)&failures, sizeof failed));
    check_cuda(cudaMemset(failures, 0, sizeof failed));
    sum_on_heap<<<1, THREADS>>>(sums, failures);
    check_launch();
    check_cuda(cudaMemcpy(host, sums, sizeof host, cudaMemcpyDeviceToHost));
    check_cuda(cudaMemcpy(&failed, failures, sizeof failed, cudaMemcpyDeviceToHost));
    printf("malloc() calls that returned NULL: %d\n", failed);
    check_cuda(cudaFree(failures));
    check_cuda(cudaFree(sums));

    return check_ints("sums", host, want, THREADS) ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
