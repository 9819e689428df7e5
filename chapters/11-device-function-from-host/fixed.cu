/**
 * \file fixed.cu
 * \brief Chapter 11, fixed: a __global__ kernel calls the __device__ function,
 *        and the host launches the kernel.
 */
#include "check_cuda.h"

#define N 256

/* Device code only: callable from kernels and other __device__ functions. */
__device__ int triple(int x)
{
    return 3 * x;
}

/* FIX: a __global__ kernel is what the host can launch, and inside it triple()
   is an ordinary function call. Each thread handles one element. */
__global__ void triple_all(int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x; /* FIX: one i each */
    if (i < n)
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
    triple_all<<<(N + 255) / 256, 256>>>(dev, N); /* FIX: a launch */
    check_launch();
    check_cuda(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    return check_ints("tripled", host, want, N) ? CLINIC_EXIT_WRONG_RESULT
                                                : CLINIC_EXIT_OK;
}
