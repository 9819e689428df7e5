/**
 * \file broken.cu
 * \brief Chapter 07, broken: the device buffer is freed before the results are
 *        copied out of it, so the copy reads through a dangling pointer.
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
    /* BUG: the buffer is released before its last use. cudaFree() does not
       change dev: it still holds the old address, which now belongs to nobody
       (or, after the next cudaMalloc(), perhaps to someone else). */
    check_cuda(cudaFree(dev));
    check_cuda(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));

    return check_ints("squares", host, want, N) ? CLINIC_EXIT_WRONG_RESULT
                                                : CLINIC_EXIT_OK;
}
