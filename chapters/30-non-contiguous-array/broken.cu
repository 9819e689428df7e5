/**
 * \file broken.cu
 * \brief Chapter 30, broken: a block of columns of a row-major host matrix
 *        is copied to the GPU with one cudaMemcpy, as if its rows followed
 *        one another in memory, so the kernel reads the wrong elements.
 */
#include "check_cuda.h"

#define ROWS 4      /* rows of the host matrix and of the block */
#define COLS 6      /* columns of the host matrix: a row is 24 bytes */
#define FIRST 2     /* the block is columns FIRST to FIRST + BLOCK - 1 */
#define BLOCK 3     /* columns of the block: a block row is 12 bytes */

/* sums[r] = the sum of row r of a dense rows x cols block (row-major, each
   row right after the one before). One thread per row. */
__global__ void row_sums(const int *block, int rows, int cols, int *sums)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        int sum = 0;
        for (int c = 0; c < cols; c++)
            sum += block[r * cols + c];
        sums[r] = sum;
    }
}

int main(void)
{
    int matrix[ROWS][COLS], seen[ROWS][BLOCK], sums[ROWS], want[ROWS];
    int *dev_block = NULL, *dev_sums = NULL;

    require_gpu_or_skip();
    for (int r = 0; r < ROWS; r++) {
        want[r] = 0;
        for (int c = 0; c < COLS; c++) {
            matrix[r][c] = 10 * r + c;
            if (c >= FIRST && c < FIRST + BLOCK)
                want[r] += matrix[r][c];
        }
    }
    printf("a %d x %d matrix of ints, element [r][c] = 10 * r + c; "
           "the block is columns %d to %d\n", ROWS, COLS, FIRST,
           FIRST + BLOCK - 1);

    check_cuda(cudaMalloc((void **)&dev_block, sizeof seen));
    /* BUG: the block's rows are COLS ints apart in the matrix, not BLOCK:
       one copy of ROWS * BLOCK ints from its first element takes the rest
       of row 0, all of row 1 and the start of row 2, as if it were dense. */
    check_cuda(cudaMemcpy(dev_block, &matrix[0][FIRST], sizeof seen,
                          cudaMemcpyHostToDevice));

    check_cuda(cudaMalloc((void **)&dev_sums, sizeof sums));
    row_sums<<<1, ROWS>>>(dev_block, ROWS, BLOCK, dev_sums);
    check_launch();
    /* What the kernel read: the block as it is on the GPU. */
    check_cuda(cudaMemcpy(seen, dev_block, sizeof seen,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaMemcpy(sums, dev_sums, sizeof sums,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev_block));
    check_cuda(cudaFree(dev_sums));

    printf("the block as the kernel reads it:\n");
    for (int r = 0; r < ROWS; r++) {
        printf("row %d:", r);
        for (int c = 0; c < BLOCK; c++)
            printf(" %d", seen[r][c]);
        printf("\n");
    }
    printf("row sums: %d %d %d %d\n", sums[0], sums[1], sums[2], sums[3]);
    size_t wrong = check_ints("sums", sums, want, ROWS);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
