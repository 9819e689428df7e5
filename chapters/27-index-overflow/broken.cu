/**
 * \file broken.cu
 * \brief Chapter 27, broken: a kernel over a byte array of 2 GiB + 1 MiB
 *        computes its index in an int. Past 2^31 - 1 the index wraps to a
 *        negative number, and the threads of the last 1 MiB write 2 GiB
 *        before the start of the array.
 */
#include <limits.h>

#include "check_cuda.h"

#define BLOCK 256 /* threads per block */
#define MIB ((size_t)1 << 20)
#define N (((size_t)1 << 31) + MIB) /* bytes: 2 GiB + 1 MiB */

/* Writes out[i] = the low 8 bits of i, for every i < n (n is 64-bit). */
__global__ void fill(unsigned char *out, long long n)
{
    /* BUG: an int holds at most 2^31 - 1. From thread 2^31 on, the index
       wraps to a negative int, which passes i < n: out[i] is 2 GiB too low. */
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (unsigned char)i;
}

/* cudaMalloc, or a skip when the GPU has too little free memory for it. */
static unsigned char *malloc_or_skip(size_t bytes)
{
    unsigned char *p = NULL;
    size_t free_bytes = 0, total_bytes = 0;
    cudaError_t err = cudaErrorMemoryAllocation;

    check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (free_bytes >= bytes)
        err = cudaMalloc((void **)&p, bytes);
    if (err == cudaErrorMemoryAllocation) {
        printf("[SKIPPED] not enough free GPU memory: this chapter needs "
               "%zu MiB, the GPU has %zu MiB free\n", bytes / MIB,
               free_bytes / MIB);
        exit(CLINIC_EXIT_SKIP);
    }
    check_cuda(err);
    return p;
}

int main(void)
{
    /* The 2 MiB that straddle byte 2^31: the last MiB an int can index
       and the first MiB it cannot. */
    size_t first = N - 2 * MIB, wrong = 0, bad = 0;
    unsigned char *window, *dev;
    unsigned int blocks = (unsigned int)(N / BLOCK); /* N is a multiple */

    require_gpu_or_skip();
    dev = malloc_or_skip(N);
    window = (unsigned char *)checked_malloc(2 * MIB);
    printf("array: %zu bytes (2 GiB + 1 MiB), one thread per byte\n", N);
    printf("grid: %u blocks of %d threads\n", blocks, BLOCK);
    printf("indices 0 to %zu; an int holds at most %d\n", N - 1, INT_MAX);

    fill<<<blocks, BLOCK>>>(dev, (long long)N);
    check_launch();
    check_cuda(cudaMemcpy(window, dev + first, 2 * MIB,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    for (size_t k = 0; k < 2 * MIB; k++) {
        if (window[k] != (unsigned char)(first + k)) {
            if (wrong++ == 0)
                bad = first + k;
        }
    }
    printf("bytes %zu to %zu: %zu of %zu wrong", first, N - 1, wrong,
           2 * MIB);
    if (wrong)
        printf(", first at [%zu]", bad);
    printf("\n");
    free(window);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
