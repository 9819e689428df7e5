/**
 * \file broken.cu
 * \brief Chapter 36, broken: the byte count of a 4097 MiB buffer is
 *        computed as mib * MIB with both factors unsigned int. The product
 *        wraps past 2^32 before it becomes a size_t, cudaMalloc() gets
 *        1 MiB, and the kernel that fills 4097 MiB writes far past its end.
 */
#include "check_cuda.h"

#define MIB 1048576u    /* bytes in a MiB: an unsigned int constant */
#define MIB_INTS 262144 /* ints in a MiB */
#define SIZE_MIB 4097u  /* the buffer's size: 4 GiB + 1 MiB */

/* Block b fills MiB b of the buffer with the value b: 1024 threads, 256
   ints each. The offsets are 64-bit: the kernel is right. */
__global__ void fill(int *buf)
{
    size_t first = (size_t)blockIdx.x * MIB_INTS + threadIdx.x;

    for (int k = 0; k < MIB_INTS / 1024; k++)
        buf[first + (size_t)k * 1024] = (int)blockIdx.x;
}

/* cudaMalloc, or a skip when the GPU has too little free memory for it. */
static int *malloc_or_skip(size_t bytes)
{
    int *p = NULL;
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
    int *buf, *last = (int *)checked_malloc(MIB);
    int *want = (int *)checked_malloc(MIB);
    size_t bytes;
    size_t wrong;

    require_gpu_or_skip();
    /* BUG: mib and MIB are both unsigned int, so mib * MIB is computed in
       32 bits and wraps modulo 2^32 before it is converted to size_t:
       4097 MiB becomes 1 MiB. */
    bytes = mib * MIB;
    buf = malloc_or_skip(bytes);
    printf("buffer: %u MiB, %zu bytes allocated\n", mib, bytes);

    fill<<<mib, 1024>>>(buf);
    check_launch();
    /* The last MiB of the buffer, where block mib - 1 wrote. */
    check_cuda(cudaMemcpy(last, (char *)buf + (bytes - MIB), MIB,
                          cudaMemcpyDeviceToHost));
    for (int i = 0; i < MIB_INTS; i++)
        want[i] = (int)mib - 1;
    wrong = check_ints("last MiB", last, want, MIB_INTS);

    check_cuda(cudaFree(buf));
    free(want);
    free(last);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
