/**
 * \file broken.cu
 * \brief Chapter 12, broken: the number of blocks is computed with integer
 *        division, which rounds down, so the last elements get no thread and
 *        come back untouched. No CUDA call reports anything.
 */
#include "check_cuda.h"

#define N 1000 /* not a multiple of BLOCK: the last block is a partial one */
#define BLOCK 256  /* threads per block */
#define MARKER                                                                 \
    -1 /* what cudaMemset(0xff) leaves in every int; no thread writes it */

/* Writes out[i] = i * i for every i < n that has a thread. */
__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
}

/* How many of the n values are equal to value. */
static int count_equal(const int *values, int n, int value)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        count += values[i] == value;
    return count;
}

int main(void)
{
    int host[N], want[N];
    int *dev = NULL;
    /* BUG: integer division rounds down. 1000 / 256 is 3 blocks, 768 threads,
       so elements 768 to 999 have no thread at all. */
    int blocks = N / BLOCK;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++)
        want[i] = i * i;

    check_cuda(cudaMalloc((void **)&dev, sizeof host));
    /* Every byte 0xff, so every int reads -1: anything still -1 afterwards
       was never written by the kernel. It also means no element is ever
       copied back uninitialised. */
    check_cuda(cudaMemset(dev, 0xff, sizeof host));
    printf("grid: %d blocks of %d threads = %d threads for %d elements\n",
           blocks, BLOCK, blocks * BLOCK, N);
    squares<<<blocks, BLOCK>>>(dev, N);
    check_launch();
    check_cuda(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    printf("untouched: %d of %d elements still hold the marker %d\n",
           count_equal(host, N, MARKER), N, MARKER);
    return check_ints("squares", host, want, N) ? CLINIC_EXIT_WRONG_RESULT
                                                : CLINIC_EXIT_OK;
}
