/**
 * \file sizeof_pointer.cu
 * \brief Chapter 01, a variant: the copy's size is `sizeof` of a pointer to
 *        the host array, not of the array, so only 8 bytes (2 ints) come
 *        back. Every call succeeds, and no tool complains.
 */
#include <stdlib.h>

#include "check_cuda.h"

#define N 1000

/* Writes out[i] = i * i for every i < n. */
__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
}

int main(void)
{
    /* The results go to a buffer from malloc(): host is a pointer. */
    int *host = (int *)checked_malloc(N * sizeof(int));
    int want[N];
    int *dev = NULL;
    size_t wrong;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++) {
        host[i] = -1; /* a marker: any -1 left over was never copied back */
        want[i] = i * i;
    }

    check_cuda(cudaMalloc((void **)&dev, N * sizeof(int)));
    squares<<<(N + 255) / 256, 256>>>(dev, N);
    check_launch();
    /* BUG: sizeof host is the size of the pointer (8 bytes on a 64-bit
       host), not of the N ints it points to. sizeof gives an array's size
       only where the array itself is in scope, never through a pointer. */
    check_cuda(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    wrong = check_ints("squares", host, want, N);
    free(host);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
