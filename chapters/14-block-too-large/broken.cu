/**
 * \file broken.cu
 * \brief Chapter 14, broken: the kernel is launched with 2048 threads per
 *        block, more than the device allows. The launch is refused, nothing
 *        checks it, and the copy back brings the buffer untouched.
 */
#include "check_cuda.h"

#define N 4096
#define MARKER                                                                 \
    -1 /* what cudaMemset(0xff) leaves in every int; no thread writes it */

/* Writes out[i] = i * i for every i < n. */
__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
}

/* How many of the n values are equal to value. */
static int count_equal(const int *values, int n, int value)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        count += values[i] == value;
    return count;
}

/* Prints what cudaGetLastError() returns now; the call also resets it. */
static void print_last_error(const char *when)
{
    cudaError_t err = cudaGetLastError();
    printf("%s: %s (%s)\n", when, cudaGetErrorName(err),
           cudaGetErrorString(err));
}

int main(void)
{
    int host[N], want[N];
    int *dev = NULL;
    int max_threads = 0;
    size_t wrong;
    int block = 2048; /* threads per block */

    require_gpu_or_skip();
    for (int i = 0; i < N; i++)
        want[i] = i * i;
    check_cuda(
        cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, 0));

    check_cuda(cudaMalloc((void **)&dev, sizeof host));
    /* Every int -1: anything still -1 afterwards was never written by the
       kernel. */
    check_cuda(cudaMemset(dev, 0xff, sizeof host));
    printf("block size: %s the device's limit of %d threads per block\n",
           block <= max_threads ? "within" : "above", max_threads);
    /* BUG: 2048 threads per block is more than the device allows, and nothing
       asks whether the launch worked. It is refused, the kernel never runs,
       and the calls below have no reason to fail. */
    squares<<<(N + block - 1) / block, block>>>(dev, N);
    check_cuda(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    printf("untouched: %d of %d elements still hold the marker %d\n",
           count_equal(host, N, MARKER), N, MARKER);
    wrong = check_ints("squares", host, want, N);
    /* A launch error that nobody read is still in the runtime's error
       variable: the first read returns it and resets it to cudaSuccess. */
    print_last_error("cudaGetLastError() at the end");
    print_last_error("cudaGetLastError() once more");
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
