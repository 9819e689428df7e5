/**
 * \file fixed.cu
 * \brief Chapter 22, fixed: the kernel moves its results out of the device-heap
 *        scratch array with plain memcpy(), which device code may call.
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
    /* FIX: inside a kernel a copy is plain memory access: memcpy() (or a loop)
       is compiled for the GPU and runs in this thread, done when it returns. */
    memcpy(out, scratch, n * sizeof(int));
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
