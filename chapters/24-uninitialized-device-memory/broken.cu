/**
 * \file broken.cu
 * \brief Chapter 24, broken: each batch counts its values into a new
 *        cudaMalloc() buffer that is never cleared, so its counts start from
 *        whatever that memory held (here, after the first batch, the counts
 *        of the batch before).
 */
#include "check_cuda.h"

#define N 256     /* values per batch */
#define BINS 8    /* the values run from 0 to BINS - 1 */
#define BATCHES 3 /* each batch counts the same N values */

/* Adds 1 to counts[values[i]] for every i < n. */
__global__ void histogram(const int *values, int n, int *counts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&counts[values[i]], 1);
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
    printf("%d batches of %d values, %d of each value from 0 to %d\n",
           BATCHES, N, N / BINS, BINS - 1);

    for (int batch = 1; batch <= BATCHES; batch++) {
        /* Each batch counts into a buffer of its own, freed at its end. */
        check_cuda(cudaMalloc((void **)&dev_counts, sizeof counts));
        /* BUG: cudaMalloc() does not clear the memory it returns, so the
           counts start from whatever it held, not from 0. */
        histogram<<<1, N>>>(dev_values, N, dev_counts);
        check_launch();
        check_cuda(cudaMemcpy(counts, dev_counts, sizeof counts,
                              cudaMemcpyDeviceToHost));
        check_cuda(cudaFree(dev_counts));

        snprintf(name, sizeof name, "batch %d counts", batch);
        print_values(name, counts, BINS);
        snprintf(name, sizeof name, "batch %d", batch);
        wrong += check_ints(name, counts, want, BINS);
    }
    check_cuda(cudaFree(dev_values));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
