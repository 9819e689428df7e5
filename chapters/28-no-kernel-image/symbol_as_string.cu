/**
 * \file symbol_as_string.cu
 * \brief Chapter 28, the other cause of "invalid device symbol": built
 *        with code for the GPU (the project's default architectures), so
 *        the kernel runs, but cudaMemcpyToSymbol() is given the variable's
 *        name as a string. String symbols were deprecated in CUDA 4.1 and
 *        removed in CUDA 5.0; the string still compiles, as an address.
 */
#include "check_cuda.h"

#define N 8 /* elements */

__constant__ int offset = 1; /* what add_offset adds; the host may change it */

/* Adds offset to each of the n ints. */
__global__ void add_offset(int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] += offset;
}

/* Runs add_offset on in and compares the result with in + expected.
   Returns the number of wrong elements. */
static size_t add_on_gpu(int *dev, const int *in, int expected)
{
    int out[N], want[N];

    check_cuda(cudaMemcpy(dev, in, N * sizeof(int), cudaMemcpyHostToDevice));
    add_offset<<<1, N>>>(dev, N);
    check_launch();
    check_cuda(cudaMemcpy(out, dev, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        want[i] = in[i] + expected;
    return check_ints("out", out, want, N);
}

int main(void)
{
    int in[N], new_offset = 100, *dev = NULL;
    size_t wrong;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++)
        in[i] = i + 1;
    check_cuda(cudaMalloc((void **)&dev, sizeof in));

    wrong = add_on_gpu(dev, in, 1); /* the offset the build gave: 1 */
    /* BUG: a string is not the symbol: the runtime looks up the address
       of the string literal among the program's device variables. */
    check_cuda(cudaMemcpyToSymbol("offset", &new_offset, sizeof new_offset));
    wrong += add_on_gpu(dev, in, new_offset);
    check_cuda(cudaFree(dev));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
