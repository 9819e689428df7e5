/**
 * \file fixed.cu
 * \brief Chapter 27, fixed: the kernel over a byte array of 2 GiB + 64 KiB
 *        computes each thread's byte offset in 64 bits, so every thread
 *        writes its own bytes, the last 64 KiB included.
 */
#include <limits.h>

#include "check_cuda.h"

#define BLOCK 1024 /* threads per block */
#define CHUNK 64   /* bytes per thread */
#define MIB ((size_t)1 << 20)
#define TAIL ((size_t)64 << 10) /* 64 KiB */
#define N (((size_t)1 << 31) + TAIL) /* bytes: 2 GiB + 64 KiB */

/* Writes out[k] = the low 8 bits of k, for the CHUNK bytes from the
   thread's offset on, if they lie below n (n is 64-bit). */
__global__ void fill(unsigned char *out, long long n)
{
    /* FIX: the multiply in 64 bits: every offset fits (the largest is
       just over 2^31), and none turns negative. */
    long long offset =
        (long long)(blockIdx.x * blockDim.x + threadIdx.x) * CHUNK;
    if (offset < n)
        for (int k = 0; k < CHUNK; k++)
            out[offset + k] = (unsigned char)(offset + k);
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
               "%zu MiB, the GPU has %zu MiB free\n", (bytes + MIB - 1) / MIB,
               free_bytes / MIB);
        exit(CLINIC_EXIT_SKIP);
    }
    check_cuda(err);
    return p;
}

int main(void)
{
    /* The 128 KiB that straddle byte 2^31: the last 64 KiB an int can
       index and the 64 KiB after them, which it cannot. */
    size_t first = N - 2 * TAIL, wrong = 0, bad = 0;
    unsigned char *window, *dev;
    unsigned int blocks = (unsigned int)(N / (BLOCK * CHUNK)); /* exact */

    require_gpu_or_skip();
    dev = malloc_or_skip(N);
    window = (unsigned char *)checked_malloc(2 * TAIL);
    printf("array: %zu bytes (2 GiB + 64 KiB), %d bytes a thread\n", N,
           CHUNK);
    printf("grid: %u blocks of %d threads\n", blocks, BLOCK);
    printf("offsets 0 to %zu; an int holds at most %d\n", N - CHUNK,
           INT_MAX);

    fill<<<blocks, BLOCK>>>(dev, (long long)N);
    check_launch();
    check_cuda(cudaMemcpy(window, dev + first, 2 * TAIL,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    for (size_t k = 0; k < 2 * TAIL; k++) {
        if (window[k] != (unsigned char)(first + k)) {
            if (wrong++ == 0)
                bad = first + k;
        }
    }
    printf("bytes %zu to %zu: %zu of %zu wrong", first, N - 1, wrong,
           2 * TAIL);
    if (wrong)
        printf(", first at [%zu]", bad);
    printf("\n");
    free(window);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
