/**
 * \file fixed.cu
 * \brief Chapter 03, fixed: one element count, N, sizes the host array, the
 *        device buffer, the kernel's bound and the copy back, so the copy
 *        fits the host array exactly.
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
    /* FIX: count is the number of elements, N, like the host array. The grid
       stays rounded up; the kernel's if (i < n) keeps the spare threads out,
       and the copy back brings exactly N ints. */
    int count = N;

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
