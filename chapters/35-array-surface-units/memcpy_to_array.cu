/**
 * \file memcpy_to_array.cu
 * \brief Chapter 35, the loud form: a plain cudaMemcpy is given a
 *        cudaArray_t as its destination. It compiles, since the handle
 *        converts to void *, but an array is not memory at an address:
 *        the copy is refused, and a program that does not check it reads
 *        back an array that never received the data.
 */
#include "check_cuda.h"

#define WIDTH 8  /* floats a row: 32 bytes */
#define HEIGHT 3 /* rows */

int main(void)
{
    float zeros[HEIGHT][WIDTH] = {{0.0f}}, data[HEIGHT][WIDTH];
    float got[HEIGHT][WIDTH];
    int got_ints[HEIGHT][WIDTH], want[HEIGHT][WIDTH];
    size_t row_bytes = WIDTH * sizeof(float);
    cudaChannelFormatDesc desc =
        cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaArray_t array = NULL;
    cudaError_t err;

    require_gpu_or_skip();
    for (int row = 0; row < HEIGHT; row++)
        for (int col = 0; col < WIDTH; col++) {
            want[row][col] = 10 * (row + 1) + col;
            data[row][col] = (float)want[row][col];
        }

    check_cuda(cudaMallocArray(&array, &desc, WIDTH, HEIGHT, 0));
    /* Zeros first: texels the copy misses then read back as 0. */
    check_cuda(cudaMemcpy2DToArray(array, 0, 0, zeros, row_bytes, row_bytes,
                                   HEIGHT, cudaMemcpyHostToDevice));
    /* BUG: a cudaArray_t is a handle to memory laid out as the driver
       chooses, not a device pointer; cudaMemcpy needs an address. */
    err = cudaMemcpy(array, data, sizeof data, cudaMemcpyHostToDevice);
    printf("cudaMemcpy into a cudaArray_t: %s\n", cudaGetErrorName(err));
    /* The error also waits in cudaGetLastError(), which clears it. */
    printf("then cudaGetLastError: %s\n",
           cudaGetErrorName(cudaGetLastError()));
    check_cuda(cudaMemcpy2DFromArray(got, row_bytes, array, 0, 0, row_bytes,
                                     HEIGHT, cudaMemcpyDeviceToHost));
    check_cuda(cudaFreeArray(array));

    for (int row = 0; row < HEIGHT; row++)
        for (int col = 0; col < WIDTH; col++)
            got_ints[row][col] = (int)got[row][col];
    size_t wrong = check_ints("array", &got_ints[0][0], &want[0][0],
                              HEIGHT * WIDTH);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
