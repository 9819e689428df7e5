/**
 * \file fixed.cu
 * \brief Chapter 35, fixed: the kernel gives surf2Dwrite the byte offset
 *        of its texel, col * sizeof(float), so every texel of the CUDA
 *        array is written and reads back right.
 */
#include <string.h>
#include "check_cuda.h"

#define WIDTH 8  /* floats a row: 32 bytes */
#define HEIGHT 3 /* rows */

/* Writes 10 * (row + 1) + col into texel (col, row) of a CUDA array of
   floats, through its surface object. One thread per texel. */
__global__ void fill_array(cudaSurfaceObject_t surf, int width, int height)
{
    int col = threadIdx.x, row = threadIdx.y;
    if (col < width && row < height) {
        float value = 10.0f * (row + 1) + col;
        /* FIX: a surface's x is a BYTE offset into the row: texel col
           starts at byte col * sizeof(float). The row y stays an index. */
        surf2Dwrite(value, surf, col * (int)sizeof(float), row);
    }
}

int main(void)
{
    float zeros[HEIGHT][WIDTH] = {{0.0f}}, got[HEIGHT][WIDTH];
    int got_ints[HEIGHT][WIDTH], want[HEIGHT][WIDTH];
    size_t row_bytes = WIDTH * sizeof(float);
    /* One 32-bit float channel: the format of the data copied in. */
    cudaChannelFormatDesc desc =
        cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaArray_t array = NULL;
    cudaResourceDesc res;
    cudaSurfaceObject_t surf = 0;

    require_gpu_or_skip();
    for (int row = 0; row < HEIGHT; row++)
        for (int col = 0; col < WIDTH; col++)
            want[row][col] = 10 * (row + 1) + col;

    /* The array's width and height are in elements (texels); a surface
       needs the cudaArraySurfaceLoadStore flag. */
    check_cuda(cudaMallocArray(&array, &desc, WIDTH, HEIGHT,
                               cudaArraySurfaceLoadStore));
    /* Zeros first: a texel the kernel misses then reads back as 0. An
       array is no pointer: it is filled with cudaMemcpy2DToArray, whose
       source pitch and width are in bytes. */
    check_cuda(cudaMemcpy2DToArray(array, 0, 0, zeros, row_bytes, row_bytes,
                                   HEIGHT, cudaMemcpyHostToDevice));
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    check_cuda(cudaCreateSurfaceObject(&surf, &res));

    printf("a %d x %d CUDA array of floats, written through a surface\n",
           HEIGHT, WIDTH);
    fill_array<<<1, dim3(WIDTH, HEIGHT)>>>(surf, WIDTH, HEIGHT);
    check_launch();
    check_cuda(cudaMemcpy2DFromArray(got, row_bytes, array, 0, 0, row_bytes,
                                     HEIGHT, cudaMemcpyDeviceToHost));
    check_cuda(cudaDestroySurfaceObject(surf));
    check_cuda(cudaFreeArray(array));

    for (int row = 0; row < HEIGHT; row++) {
        printf("row %d:", row);
        for (int col = 0; col < WIDTH; col++) {
            printf(" %g", got[row][col]);
            got_ints[row][col] = (int)got[row][col];
        }
        printf("\n");
    }
    size_t wrong = check_ints("array", &got_ints[0][0], &want[0][0],
                              HEIGHT * WIDTH);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
