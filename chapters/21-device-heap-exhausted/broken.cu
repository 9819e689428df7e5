/**
 * \file broken.cu
 * \brief Chapter 21, broken: the 1024 threads of a kernel each malloc() 32 KiB,
 *        32 MiB in all, from the default device heap of 8 MiB. Some malloc()
 *        calls return NULL, the kernel writes through NULL, and the GPU faults.
 */
#include "check_cuda.h"

#define THREADS 1024      /* one block */
#define SCRATCH_INTS 8192 /* 32 KiB a thread, 32 MiB for the block */

/* Every thread takes a scratch array from the device heap, fills it with its
   own index t, and writes the sum of the array, t * SCRATCH_INTS, to
   sums[t]. */
__global__ void sum_on_heap(int *sums)
{
    int t = threadIdx.x;
    int sum = 0;
    int *scratch = (int *)malloc(SCRATCH_INTS * sizeof(int));
    /* BUG: malloc() returns NULL when the heap cannot serve the request, and
       nothing here looks. The heap has its default size, 8 MiB, and the block
       asks for 32 MiB, so some threads write through NULL. */
    int n = SCRATCH_INTS;
    for (int j = 0; j < n; j++)
        scratch[j] = t;
    __syncthreads(); /* here every thread holds its array: 32 MiB at once */
    for (int j = 0; j < n; j++)
        sum += scratch[j];
    free(scratch);
    sums[t] = sum;
}

int main(void)
{
    int host[THREADS], want[THREADS];
    int *sums = NULL;

    require_gpu_or_skip();
    for (int t = 0; t < THREADS; t++) {
        host[t] = -1; /* a marker: any -1 left over was never copied back */
        want[t] = t * SCRATCH_INTS;
    }
    printf("%d threads, each malloc(%d) in the kernel: %d MiB in all\n",
           THREADS, (int)(SCRATCH_INTS * sizeof(int)),
           (int)(THREADS * SCRATCH_INTS * sizeof(int) >> 20));

    check_cuda(cudaMalloc((void **)&sums, sizeof host));
    sum_on_heap<<<1, THREADS>>>(sums);
    check_launch();
    check_cuda(cudaMemcpy(host, sums, sizeof host, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(sums));

    if (check_ints("sums", host, want, THREADS))
        return CLINIC_EXIT_WRONG_RESULT;
    return CLINIC_EXIT_OK;
}
