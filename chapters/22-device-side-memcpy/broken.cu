/**
 * \file broken.cu
 * \brief Chapter 22, broken: a kernel calls cudaMemcpy() to move its results
 *        out of a device-heap scratch array, and nvcc refuses to compile it.
 */
#include "check_cuda.h"

#define N 256

/* One thread: builds the first n squares in a scratch array taken from the
   device heap, then copies them to out, a buffer the host allocated. */
__global__ void squares_via_scratch(int *out, int n)
{
    int *scratch = (int *)malloc(n * sizeof(int));
    if (scratch == NULL)
        return; /* the heap is full: out keeps the host's -1 markers */
    for (int i = 0; i < n; i++)
        scratch[i] = i * i;
    /* BUG: cudaMemcpy() is a host function. Device code has no synchronous copy
       call at all; inside a kernel a copy is plain memory access. */
    cudaMemcpy(out, scratch, n * sizeof(int), cudaMemcpyDeviceToDevice);
    free(scratch);
}

int main(void)
{
    int host[N], want[N];
    int *out = NULL;
    size_t bytes = N * sizeof(int);

    require_gpu_or_skip();
    for (int i = 0; i < N; i++)
        want[i] = i * i;

    check_cuda(cudaMalloc((void **)&out, bytes));
    /* every int -1: the kernel never wrote it */
    check_cuda(cudaMemset(out, 0xff, bytes));
    squares_via_scratch<<<1, 1>>>(out, N);
    check_launch();
    check_cuda(cudaMemcpy(host, out, bytes, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(out));

    return check_ints("squares", host, want, N) ? CLINIC_EXIT_WRONG_RESULT
                                                : CLINIC_EXIT_OK;
}
