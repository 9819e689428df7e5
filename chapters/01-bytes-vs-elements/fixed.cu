/**
 * \file fixed.cu
 * \brief Chapter 01, fixed: the buffer size is counted in bytes, N *
 *        sizeof(int), so the kernel stays inside the buffer and every result
 *        comes back.
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
    /* FIX: cudaMalloc() and cudaMemcpy() count bytes, so size is in bytes.
       Deriving it from N and the element type keeps the two in step. */
    size_t size = N * sizeof(int);

    require_gpu_or_skip();
    for (int i = 0; i < N; i++) {
        host[i] = -1; /* a marker: any -1 left over was never copied back */
        want[i] = i * i;
    }

    check_cuda(cudaMalloc((void **)&dev, size));
    squares<<<(N + 255) / 256, 256>>>(dev, N); /* writes N ints, 4 * N bytes */
    check_launch();
    check_cuda(cudaMemcpy(host, dev, size, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    return check_ints("squares", host, want, N) ? CLINIC_EXIT_WRONG_RESULT
                                                : CLINIC_EXIT_OK;
}
