/**
 * \file broken.cu
 * \brief Chapter 02, broken: nobody reads what cudaMalloc() returns, so when
 *        the GPU cannot give the memory the failure is reported later, by a
 *        copy whose arguments all look right.
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
    /* BUG: the error code is thrown away. 1 TiB is far more than the GPU has,
       so cudaMalloc() returns cudaErrorMemoryAllocation, table stays NULL,
       and the program carries on as if it had the memory. */
    cudaMalloc((void **)&table, table_bytes);
    check_cuda(cudaMemcpy(table, chunk, sizeof chunk, cudaMemcpyHostToDevice));
    check_cuda(cudaMemcpy(back, table, sizeof back, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(table));

    return check_ints("first chunk", back, chunk, CHUNK)
               ? CLINIC_EXIT_WRONG_RESULT
               : CLINIC_EXIT_OK;
}
