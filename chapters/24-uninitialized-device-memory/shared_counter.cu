/**
 * \file shared_counter.cu
 * \brief Chapter 24, a variant: a block counts into a __shared__ histogram
 *        that no thread clears first. Shared memory starts each launch with
 *        whatever it held, so the counts start from leftovers.
 */
#include "check_cuda.h"

#define N 256     /* values per batch */
#define BINS 8    /* the values run from 0 to BINS - 1 */
#define BATCHES 3 /* each batch counts the same N values */

/* Counts values[i] for every i < n into the block's own histogram in shared
   memory, then adds that histogram to counts. */
__global__ void histogram(const int *values, int n, int *counts)
{
    /* BUG: __shared__ variables cannot have an initialiser, and nothing here
       sets these to 0: each launch counts on top of whatever this shared
       memory held before. */
    __shared__ int block_counts[BINS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        atomicAdd(&block_counts[values[i]], 1);
    __syncthreads();
    if (threadIdx.x < BINS)
        atomicAdd(&counts[threadIdx.x], block_counts[threadIdx.x]);
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
    int values[N], counts[BINS], want[BINS];
    int *dev_values = NULL, *dev_counts = NULL;
    char name[32];
    size_t wrong = 0;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++)
        values[i] = i % BINS;
    for (int b = 0; b < BINS; b++)
        want[b] = N / BINS;
    check_cuda(cudaMalloc((void **)&dev_values, sizeof values));
    check_cuda(cudaMemcpy(dev_values, values, sizeof values,
                          cudaMemcpyHostToDevice));
    check_cuda(cudaMalloc((void **)&dev_counts, sizeof counts));
    printf("%d batches of %d values, %d of each value from 0 to %d\n",
           BATCHES, N, N / BINS, BINS - 1);

    for (int batch = 1; batch <= BATCHES; batch++) {
        /* The global counts are cleared for every batch: not the problem. */
        check_cuda(cudaMemset(dev_counts, 0, sizeof counts));
        histogram<<<1, N>>>(dev_values, N, dev_counts);
        check_launch();
        check_cuda(cudaMemcpy(counts, dev_counts, sizeof counts,
                              cudaMemcpyDeviceToHost));

        snprintf(name, sizeof name, "batch %d counts", batch);
        print_values(name, counts, BINS);
        snprintf(name, sizeof name, "batch %d", batch);
        wrong += check_ints(name, counts, want, BINS);
    }
    check_cuda(cudaFree(dev_counts));
    check_cuda(cudaFree(dev_values));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
