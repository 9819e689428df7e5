/**
 * \file pitch_in_elements.cu
 * \brief Chapter 26, the loud form of the same confusion: a cudaMemcpy2D
 *        into pitched memory is given its destination pitch in elements
 *        where bytes are due. The copy is refused with
 *        cudaErrorInvalidPitchValue, and a program that does not check it
 *        reads back a matrix that never arrived.
 */
#include "check_cuda.h"

#define WIDTH 5  /* ints a row: 20 bytes, a multiple of no pitch alignment */
#define HEIGHT 3 /* rows */

int main(void)
{
    int got[HEIGHT][WIDTH], want[HEIGHT][WIDTH];
    int *dev = NULL;
    size_t pitch = 0, row_bytes = WIDTH * sizeof(int);
    cudaError_t err;

    require_gpu_or_skip();
    for (int row = 0; row < HEIGHT; row++)
        for (int col = 0; col < WIDTH; col++)
            want[row][col] = 10 * (row + 1) + col;

    check_cuda(cudaMallocPitch((void **)&dev, &pitch, row_bytes, HEIGHT));
    /* Zeros first: a row the copy misses then reads back as zeros. */
    check_cuda(cudaMemset2D(dev, pitch, 0, row_bytes, HEIGHT));
    /* BUG: the destination pitch is WIDTH elements, where pitch BYTES are
       due: smaller than the 20-byte width, so the copy is refused. */
    err = cudaMemcpy2D(dev, WIDTH, want, row_bytes, row_bytes, HEIGHT,
                       cudaMemcpyHostToDevice);
    printf("cudaMemcpy2D with the pitch in elements: %s\n",
           cudaGetErrorName(err));
    /* The error also waits in cudaGetLastError(), which clears it: it is
       not sticky, and the checked copy below succeeds. */
    printf("then cudaGetLastError: %s\n",
           cudaGetErrorName(cudaGetLastError()));
    check_cuda(cudaMemcpy2D(got, row_bytes, dev, pitch, row_bytes, HEIGHT,
                            cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    size_t wrong = check_ints("matrix", &got[0][0], &want[0][0],
                              HEIGHT * WIDTH);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
