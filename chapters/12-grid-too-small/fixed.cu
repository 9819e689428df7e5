/**
 * \file fixed.cu
 * \brief Chapter 12, fixed: the number of blocks is rounded up, so every
 *        element gets a thread; the kernel's bounds check stops the spare
 *        threads of the last block.
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
    /* FIX: round up, so a partial block at the end still gets launched:
       (1000 + 255) / 256 is 4 blocks, 1024 threads. The 24 spare threads of
       the last block are kept out of the array by the kernel's if (i < n). */
    int blocks = (N + BLOCK - 1) / BLOCK;

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
