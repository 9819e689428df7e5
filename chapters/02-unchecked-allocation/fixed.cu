/**
 * \file fixed.cu
 * \brief Chapter 02, fixed: cudaMalloc() is checked like every other call, so
 *        a request the GPU cannot meet stops the program at the allocation,
 *        with the real reason: out of memory.
 */
#include "check_cuda.h"

#define CHUNK 1000 /* ints in the first chunk of the data set */

int main(void)
{
    int chunk[CHUNK], back[CHUNK];
    int *table = NULL;
    size_t table_bytes = (size_t)1 << 40; /* all the data: 1 TiB */

    require_gpu_or_skip();
    for (int i = 0; i < CHUNK; i++)
        chunk[i] = 3 * i;

    printf("table: asking the GPU for %zu GiB\n", table_bytes >> 30);
    /* FIX: check the allocation like every other call. When the GPU cannot
       give 1 TiB, the program stops here, at the call that failed, with the
       error that says why: out of memory. */
    check_cuda(cudaMalloc((void **)&table, table_bytes));
    check_cuda(cudaMemcpy(table, chunk, sizeof chunk, cudaMemcpyHostToDevice));
    check_cuda(cudaMemcpy(back, table, sizeof back, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(table));

    return check_ints("first chunk", back, chunk, CHUNK)
               ? CLINIC_EXIT_WRONG_RESULT
               : CLINIC_EXIT_OK;
}
