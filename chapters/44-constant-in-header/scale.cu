/**
 * \file scale.cu
 * \brief Chapter 44: the second source file of every program in the
 *        chapter. It holds the kernel that reads scale_factor, and the two
 *        functions that scale.cuh declares.
 */
#include "check_cuda.h"
#include "scale.cuh"

/* Multiplies v[i] by scale_factor: the copy of this file. */
__global__ void scale(int *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] *= scale_factor;
}

void set_scale_factor(int factor)
{
    /* This file's scale_factor: the one the kernel above reads. */
    check_cuda(cudaMemcpyToSymbol(scale_factor, &factor, sizeof factor));
}

void scale_on_gpu(int *dev, int n)
{
    scale<<<(n + 255) / 256, 256>>>(dev, n);
    check_launch();
}
