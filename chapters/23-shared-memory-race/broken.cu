/**
 * \file broken.cu
 * \brief Chapter 23, broken: one block counts values into a histogram in
 *        shared memory with a plain += where atomicAdd() is needed, and
 *        copies the bins out with no __syncthreads() after the counting.
 */
#include "check_cuda.h"
#include "clinic_wait.cuh"

#define N 256                /* values: one per thread of a single block */
#define BINS 8               /* the values run from 0 to BINS - 1 */
#define WARP 32              /* threads per warp */
#define LATE_NS 100000000ull /* 100 ms: how much later warps 1 to 7 count */

/* Counts values[0..N-1] into counts[0..BINS-1]: one block of N threads. */
__global__ void histogram(const int *values, int *counts)
{
    __shared__ int bins[BINS];
    int t = threadIdx.x;

    if (t < BINS)
        bins[t] = 0;
    __syncthreads(); /* every bin is 0 before any thread counts */

    /* Warps 1 to 7 count 100 ms after warp 0, as if their work took
       longer. It makes the race below come out the same way every run. */
    if (t >= WARP)
        clinic_gpu_wait_ns(LATE_NS);
    /* BUG: += is a load, an add and a store. The 32 threads of a warp
       that share a bin all load the same old count, add 1 and store the
       same new count, so 32 increments leave 1. */
    bins[values[t]] += 1;
    /* BUG: no barrier: warp 0 copies the bins out as soon as it has
       counted, while warps 1 to 7 have not counted yet. */
    if (t < BINS)
        counts[t] = bins[t];
}

/* Prints "<what>: v0 v1 ..." for the n values. */
static void print_values(const char *what, const int *values, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++)
        printf(" %d", values[i]);
    printf("\n");
}

int main(void)
{
    int values[N], counts[BINS], want[BINS], total = 0;
    int *dev_values = NULL, *dev_counts = NULL;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++)
        values[i] = i / (N / BINS); /* sorted: 32 zeros, 32 ones, ... */
    for (int b = 0; b < BINS; b++)
        want[b] = N / BINS;

    check_cuda(cudaMalloc((void **)&dev_values, sizeof values));
    check_cuda(cudaMalloc((void **)&dev_counts, sizeof counts));
    check_cuda(cudaMemcpy(dev_values, values, sizeof values,
                          cudaMemcpyHostToDevice));
    printf("%d values, sorted: %d of each value from 0 to %d\n", N,
           N / BINS, BINS - 1);
    printf("one block of %d threads (%d warps) counts them in shared "
           "memory\n", N, N / WARP);
    histogram<<<1, N>>>(dev_values, dev_counts);
    check_launch();
    check_cuda(cudaMemcpy(counts, dev_counts, sizeof counts,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev_counts));
    check_cuda(cudaFree(dev_values));

    print_values("counts", counts, BINS);
    for (int b = 0; b < BINS; b++)
        total += counts[b];
    printf("total: %d of %d values counted\n", total, N);
    if (check_ints("counts", counts, want, BINS))
        return CLINIC_EXIT_WRONG_RESULT;
    return CLINIC_EXIT_OK;
}
