/**
 * \file broken.cu
 * \brief Chapter 20, broken: a kernel leaves its results in memory it took with
 *        in-kernel malloc() and hands that pointer to the host, whose
 *        cudaMemcpy() refuses it with "invalid argument".
 */
#include "check_cuda.h"

#define N 256
__device__ int *squares_at; /* BUG: where the host finds the squares */

/* One block of n threads: thread 0 takes an array of n ints from the device
   heap, every thread writes its square into it, and thread 0 hands the
   squares on. */
__global__ void squares_on_heap(int n)
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
        /* BUG: the host gets a device-heap address, which no runtime or
           driver API call accepts: not cudaMemcpy(), not cudaFree(). */
        squares_at = scratch;
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

    /* BUG: the squares' address comes from the kernel: a device-heap one. */
    squares_on_heap<<<1, N>>>(N);
    check_launch();
    check_cuda(cudaMemcpyFromSymbol(&dev, squares_at, sizeof dev));
    check_cuda(cudaMemcpy(result, dev, size, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    if (check_ints("squares", result, want, N))
        return CLINIC_EXIT_WRONG_RESULT;
    return CLINIC_EXIT_OK;
}
