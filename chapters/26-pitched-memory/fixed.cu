/**
 * \file fixed.cu
 * \brief Chapter 26, fixed: the kernel finds each row of the pitched
 *        matrix at row * pitch bytes from the start, so every row lands
 *        where cudaMemcpy2D reads it back.
 */
#include "check_cuda.h"

#define WIDTH 5  /* ints a row: 20 bytes, a multiple of no pitch alignment */
#define HEIGHT 3 /* rows */

/* Writes 10 * (row + 1) + col into element (row, col) of a pitched matrix,
   whose rows start pitch bytes apart. One thread per element. */
__global__ void fill_matrix(int *base, size_t pitch, int width, int height)
{
    int col = threadIdx.x, row = threadIdx.y;
    if (col < width && row < height) {
        /* FIX: step row * pitch BYTES through a char pointer, then index
           the row in ints. */
        int *row_start = (int *)((char *)base + row * pitch);
        row_start[col] = 10 * (row + 1) + col;
    }
}

int main(void)
{
    int got[HEIGHT][WIDTH], want[HEIGHT][WIDTH];
    int *dev = NULL;
    size_t pitch = 0, row_bytes = WIDTH * sizeof(int);

    require_gpu_or_skip();
    for (int row = 0; row < HEIGHT; row++)
        for (int col = 0; col < WIDTH; col++)
            want[row][col] = 10 * (row + 1) + col;

    /* The driver picks the pitch, the bytes from one row's start to the
       next: row_bytes rounded up for alignment. It differs between GPUs,
       so it is not printed. */
    check_cuda(cudaMallocPitch((void **)&dev, &pitch, row_bytes, HEIGHT));
    /* Zeros first: a row the kernel misses then reads back as zeros. */
    check_cuda(cudaMemset2D(dev, pitch, 0, row_bytes, HEIGHT));
    fill_matrix<<<1, dim3(WIDTH, HEIGHT)>>>(dev, pitch, WIDTH, HEIGHT);
    check_launch();
    /* Pitches and width in bytes: the host's rows are row_bytes apart. */
    check_cuda(cudaMemcpy2D(got, row_bytes, dev, pitch, row_bytes, HEIGHT,
                            cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    printf("a %d x %d matrix of ints in pitched memory: %zu bytes a row, "
           "pitch %s\n", HEIGHT, WIDTH, row_bytes,
           pitch > row_bytes ? "larger" : "the same");
    for (int row = 0; row < HEIGHT; row++) {
        printf("row %d:", row);
        for (int col = 0; col < WIDTH; col++)
            printf(" %d", got[row][col]);
        printf("\n");
    }
    size_t wrong = check_ints("matrix", &got[0][0], &want[0][0],
                              HEIGHT * WIDTH);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
