/**
 * \file broken.cu
 * \brief Chapter 03, broken: the device buffer, the kernel and the copy back
 *        are sized for the whole grid, 1024 ints, but the host array holds the
 *        1000 real results, so the copy writes 24 ints past its end.
 */
#include "check_cuda.h"

#define N 1000            /* elements in the data set */
#define BLOCK 256         /* threads per block */
#define GUARD 64          /* ints of guard zone right after the host array */
#define GUARD_WORD 0x0BADF00D

/* Writes out[i] = i * i for every i < n. */
__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
}

int main(void)
{
    int want[N];
    int *dev = NULL;
    int blocks = (N + BLOCK - 1) / BLOCK; /* rounded up to whole blocks: 4 */
    /* BUG: count is the number of threads in the grid, 1024, not the number
       of elements, N. It sizes the device buffer, the kernel's bound and the
       copy back, while the host array holds only N ints. */
    int count = blocks * BLOCK;

    require_gpu_or_skip();
    /* The host array and a guard zone after it, in ONE malloc block: the
       copy's overrun stays inside memory this program owns, so the damage is
       well defined and can be counted. A real program has no guard zone. */
    int *host = (int *)checked_malloc((N + GUARD) * sizeof(int));
    int *guard = host + N;
    for (int i = 0; i < N; i++) {
        host[i] = -1;
        want[i] = i * i;
    }
    for (int i = 0; i < GUARD; i++)
        guard[i] = GUARD_WORD;

    check_cuda(cudaMalloc((void **)&dev, count * sizeof(int)));
    squares<<<blocks, BLOCK>>>(dev, count);
    check_launch();
    check_cuda(
        cudaMemcpy(host, dev, count * sizeof(int), cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    size_t wrong = check_ints("squares", host, want, N);
    int overwritten = 0;
    for (int i = 0; i < GUARD; i++)
        if (guard[i] != GUARD_WORD)
            overwritten++;
    printf("guard: %d of %d words after the host array overwritten\n",
           overwritten, GUARD);
    free(host);
    return (wrong || overwritten) ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
