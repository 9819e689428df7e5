/**
 * \file fixed.cu
 * \brief Chapter 07, fixed: the device buffer is freed once, last, after the
 *        results have been copied out of it.
 */
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
    int host[N], want[N];
    int *dev = NULL;
    size_t bytes = N * sizeof(int);

    require_gpu_or_skip();
    for (int i = 0; i < N; i++) {
        host[i] = -1; /* a marker: any -1 left over was never copied back */
        want[i] = i * i;
    }

    check_cuda(cudaMalloc((void **)&dev, bytes));
    squares<<<(N + 255) / 256, 256>>>(dev, N);
    check_launch();
    check_cuda(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
    /* FIX: free last, after the final use of the buffer. Nothing may touch dev
       after this line: it still holds an address, but not one we own. */
    check_cuda(cudaFree(dev));

    return check_ints("squares", host, want, N) ? CLINIC_EXIT_WRONG_RESULT
                                                : CLINIC_EXIT_OK;
}
