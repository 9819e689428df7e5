/**
 * \file fixed.cu
 * \brief Chapter 20, fixed: the kernel copies its results from its device-heap
 *        array into a buffer the host allocated with cudaMalloc() and frees the
 *        heap array itself; the host copies that buffer straight back.
 */
#include "check_cuda.h"

#define N 256

/* One block of n threads: thread 0 takes an array of n ints from the device
   heap, every thread writes its square into it, and thread 0 hands it on. */
__global__ void squares_on_heap(int *out, int n)
{
    __shared__ int *scratch;
    int i = threadIdx.x;
    if (i == 0)
        scratch = (int *)malloc(n * sizeof(int));
    __syncthreads(); /* every thread sees scratch */
    if (scratch == NULL)
        return; /* the heap is full (chapter 21) */
    if (i < n)
        scratch[i] = i * i;
    __syncthreads(); /* every square is in scratch */
    if (i == 0) {
        /* FIX: the results go where the host can reach them: out came from
           the host's cudaMalloc(). The heap array never leaves the device,
           and device code frees it, because only device code can. */
        memcpy(out, scratch, n * sizeof(int));
        free(scratch);
    }
}

int main(void)
{
    int result[N], want[N];
    int *out = NULL;
    size_t size = N * sizeof(int);

    require_gpu_or_skip();
    for (int i = 0; i < N; i++) {
        result[i] = -1; /* a marker: any -1 left over was never copied back */
        want[i] = i * i;
    }

    check_cuda(cudaMalloc((void **)&out, size));
    check_cuda(cudaMemset(out, 0xff, size)); /* -1 until the kernel writes */
    squares_on_heap<<<1, N>>>(out, N);
    check_launch();
    /* A kernel wrote out, but out is still the host's cudaMalloc() buffer: it
       is copied straight back, with no device-to-device "staging" copy. */
    check_cuda(cudaMemcpy(result, out, size, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(out));

    if (check_ints("squares", result, want, N))
        return CLINIC_EXIT_WRONG_RESULT;
    return CLINIC_EXIT_OK;
}
