/**
 * \file fixed.cu
 * \brief Chapter 36, fixed: the byte count of the 4097 MiB buffer is
 *        computed in 64 bits, (size_t)mib * MIB, so cudaMalloc() allocates
 *        all 4 GiB + 1 MiB and every MiB of the data fits.
 */
#include "check_cuda.h"

#define MIB 1048576u    /* bytes in a MiB: an unsigned int constant */
#define MIB_INTS 262144 /* ints in a MiB */
#define SIZE_MIB 4097u  /* the buffer's size: 4 GiB + 1 MiB */

/* cudaMalloc, or a skip when the GPU has too little free memory for it. */
static char *malloc_or_skip(size_t bytes)
{
    char *p = NULL;
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
    unsigned int mib = SIZE_MIB; /* a size in MiB, as settings give it */
    int *chunk = NULL; /* pinned: one MiB of the data at a time */
    int *last = (int *)checked_malloc(MIB);
    int *want = (int *)checked_malloc(MIB);
    char *buf, *dst;
    size_t bytes, wrong;

    require_gpu_or_skip();
    /* FIX: convert the first factor to size_t, so that the product is
       computed in 64 bits and holds 4097 MiB. */
    bytes = (size_t)mib * MIB;
    buf = malloc_or_skip(bytes);
    printf("buffer: %u MiB, %zu bytes allocated\n", mib, bytes);
    check_cuda(cudaMallocHost((void **)&chunk, MIB));

    /* Upload the data a MiB at a time: MiB k holds the value k. */
    dst = buf;
    for (unsigned int k = 0; k < mib; k++) {
        for (int i = 0; i < MIB_INTS; i++)
            chunk[i] = (int)k;
        check_cuda(cudaMemcpy(dst, chunk, MIB, cudaMemcpyHostToDevice));
        dst += MIB;
    }
    /* Read the last MiB back: it must hold mib - 1 everywhere. */
    check_cuda(cudaMemcpy(last, dst - MIB, MIB, cudaMemcpyDeviceToHost));
    for (int i = 0; i < MIB_INTS; i++)
        want[i] = (int)mib - 1;
    wrong = check_ints("last MiB", last, want, MIB_INTS);

    check_cuda(cudaFreeHost(chunk));
    check_cuda(cudaFree(buf));
    free(want);
    free(last);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
