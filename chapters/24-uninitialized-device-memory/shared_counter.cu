/**
 * \file shared_counter.cu
 * \brief Chapter 24, a variant: one block counts three batches into a
 *        __shared__ histogram that no thread ever sets to 0, so each batch
 *        counts on top of what the batch before it left there.
 */
#include "check_cuda.h"

#define N 256     /* values per batch */
#define BINS 8    /* the values run from 0 to BINS - 1 */
#define BATCHES 3 /* each batch counts the same N values */

/* For each batch b, counts the n values into the block's histogram in
   shared memory and copies it to counts[b * BINS ...]. One block, n
   threads. */
__global__ void histograms(const int *values, int n, int *counts)
{
    /* BUG: a __shared__ variable cannot have an initialiser, and no thread
       sets these to 0, neither before the first batch nor before the next:
       each batch counts on top of whatever the shared memory held. */
    __shared__ int block_counts[BINS];

    for (int b = 0; b < BATCHES; b++) {
        if ((int)threadIdx.x < n)
            atomicAdd(&block_counts[values[threadIdx.x]], 1);
        __syncthreads();
        if (threadIdx.x < BINS)
            counts[b * BINS + threadIdx.x] = block_counts[threadIdx.x];
        __syncthreads();
    }
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
    int values[N], counts[BATCHES * BINS], want[BINS];
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

    histograms<<<1, N>>>(dev_values, N, dev_counts);
    check_launch();
    check_cuda(cudaMemcpy(counts, dev_counts, sizeof counts,
                          cudaMemcpyDeviceToHost));
    for (int batch = 1; batch <= BATCHES; batch++) {
        snprintf(name, sizeof name, "batch %d counts", batch);
        print_values(name, counts + (batch - 1) * BINS, BINS);
        snprintf(name, sizeof name, "batch %d", batch);
        wrong += check_ints(name, counts + (batch - 1) * BINS, want, BINS);
    }
    check_cuda(cudaFree(dev_counts));
    check_cuda(cudaFree(dev_values));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
