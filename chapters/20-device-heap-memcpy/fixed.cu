/**
 * \file fixed.cu
 * \brief Chapter 20, fixed: the kernel copies its results from its device-heap
 *        array into a buffer the host allocated with cudaMalloc() and frees the
 *        heap array itself; the host copies that buffer straight back.
 */
#include "check_cuda.h"

#define N 256

/* One block of n threads: thread 0 takes an array of n ints from the device
   heap, every thread writes its square into it, and thread 0 hands the
   squares on. */
__global__ void squares_on_heap(int *out, int n) /* FIX: the host's buffer */
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
        /* FIX: the squares go where the host can reach them, into out from
           its cudaMalloc(); only device code can free the heap array. */
        memcpy(out, scratch, n * sizeof(int));
        free(scratch);
    }
}

int main(void)
{
    int result[N], want[N];
    int *dev = NULL; /* the squares on the device */
    size_t size = N * sizeof(int);

    require_gpu_or_skip();
    for (int i = 0; i < N; i++) {
        result[i] = -1; /* a marker: any -1 left over was never copied back */
        want[i] = i * i;
    }

    check_cuda(cudaMalloc((void **)&dev, size)); /* FIX: out, for the kernel */
    squares_on_heap<<<1, N>>>(dev, N);
    check_launch();
    check_cuda(cudaMemcpy(result, dev, size, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    if (check_ints("squares", result, want, N))
        return CLINIC_EXIT_WRONG_RESULT;
    return CLINIC_EXIT_OK;
}
