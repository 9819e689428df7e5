/**
 * \file broken.cu
 * \brief Chapter 11, broken: host code calls a __device__ function, which nvcc
 *        refuses to compile.
 */
#include "check_cuda.h"

#define N 256

/* Device code only: callable from kernels and other __device__ functions. */
__device__ int triple(int x)
{
    return 3 * x;
}

/* BUG: an ordinary (host) function cannot call triple(), which exists only on
   the GPU. The host must launch a __global__ kernel to run code there. */
void triple_all(int *data, int n)
{
    for (int i = 0; i < n; i++)
        data[i] = triple(data[i]);
}

int main(void)
{
    int host[N], want[N];
    int *dev = NULL;
    size_t bytes = N * sizeof(int);

    require_gpu_or_skip();
    for (int i = 0; i < N; i++) {
        host[i] = i;
        want[i] = 3 * i;
    }

    check_cuda(cudaMalloc((void **)&dev, bytes));
    check_cuda(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    triple_all(dev, N);
    check_cuda(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    return check_ints("tripled", host, want, N) ? CLINIC_EXIT_WRONG_RESULT
                                                : CLINIC_EXIT_OK;
}
