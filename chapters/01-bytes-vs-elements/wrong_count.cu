/**
 * \file wrong_count.cu
 * \brief Chapter 01, a variant: the copy back is given a count in bytes, as
 *        it should be, but taken from the wrong variable (the number of
 *        blocks instead of the number of results), so only the first few
 *        results come back. Every call succeeds, and no tool complains.
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
    int n = N;
    int threads = 256;
    int blocks = (n + threads - 1) / threads;

    require_gpu_or_skip();
    for (int i = 0; i < n; i++) {
        host[i] = -1; /* a marker: any -1 left over was never copied back */
        want[i] = i * i;
    }

    check_cuda(cudaMalloc((void **)&dev, n * sizeof(int)));
    squares<<<blocks, threads>>>(dev, n);
    check_launch();
    /* BUG: the byte count is built from blocks, the variable next to n, not
       from n: 4 ints come back, not 1000. The copy is legal (it reads less
       than the buffer holds), so it succeeds and memcheck stays silent. */
    check_cuda(cudaMemcpy(host, dev, blocks * sizeof(int),
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    return check_ints("squares", host, want, N) ? CLINIC_EXIT_WRONG_RESULT
                                                : CLINIC_EXIT_OK;
}
