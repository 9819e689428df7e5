/**
 * \file broken.cu
 * \brief Chapter 43, broken: one block per row of a 65536-row table, with
 *        the rows in grid.y, which stops at 65535. The launch is refused;
 *        the program checks only cudaDeviceSynchronize(), which returns
 *        cudaSuccess, and copies back a table that no thread wrote.
 */
#include "check_cuda.h"

#define ROWS 65536
#define COLS 32
#define MARKER                                                                 \
    -1 /* what cudaMemset(0xff) leaves in every int; no thread writes it */

/* Writes table[y][x] = y: block y of the grid's y dimension does row y, its
   thread x column x. */
__global__ void number_rows(int *table, int rows)
{
    int y = blockIdx.y;
    if (y < rows)
        table[y * COLS + threadIdx.x] = y;
}

/* How many of the n values are equal to value. */
static int count_equal(const int *values, int n, int value)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        count += values[i] == value;
    return count;
}

/* Prints an error code, by name and in words. */
static void print_error(const char *when, cudaError_t err)
{
    printf("%s: %s (%s)\n", when, cudaGetErrorName(err),
           cudaGetErrorString(err));
}

int main(void)
{
    size_t size = (size_t)ROWS * COLS * sizeof(int);
    int *host = NULL, *want = NULL, *dev = NULL;
    int max_y = 0;
    cudaError_t synced;
    size_t wrong;
    dim3 grid(1, ROWS); /* one block per row */

    require_gpu_or_skip();
    host = (int *)checked_malloc(size);
    want = (int *)checked_malloc(size);
    for (int i = 0; i < ROWS * COLS; i++)
        want[i] = i / COLS;
    check_cuda(cudaDeviceGetAttribute(&max_y, cudaDevAttrMaxGridDimY, 0));
    check_cuda(cudaMalloc((void **)&dev, size));
    /* Every int -1: anything still -1 afterwards was never written. */
    check_cuda(cudaMemset(dev, 0xff, size));
    printf("grid.y for %d rows: %s the device's limit of %d\n", ROWS,
           (int)grid.y <= max_y ? "within" : "above", max_y);

    /* BUG: grid.y above the limit, and the only check is the one on
       cudaDeviceSynchronize() below. A refused launch queues no work, so
       there is nothing for the synchronize to wait for or report. */
    number_rows<<<grid, COLS>>>(dev, ROWS);
    synced = cudaDeviceSynchronize();
    print_error("cudaDeviceSynchronize() after the launch", synced);
    check_cuda(synced);
    check_cuda(cudaMemcpy(host, dev, size, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    printf("untouched: %d of %d elements still hold the marker %d\n",
           count_equal(host, ROWS * COLS, MARKER), ROWS * COLS, MARKER);
    wrong = check_ints("number_rows", host, want, (size_t)ROWS * COLS);
    /* The launch's error is still in the runtime's error variable. */
    print_error("cudaGetLastError() at the end", cudaGetLastError());
    free(host);
    free(want);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
