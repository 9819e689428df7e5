/**
 * \file fixed.cu
 * \brief Chapter 41, fixed: the host puts each big-endian reading together
 *        as a float of its own byte order, which is the GPU's, and copies
 *        those floats, so the kernel reads the values the file holds.
 */
#include <stdint.h>
#include <string.h>
#include "check_cuda.h"

#define N 8 /* readings */

/* The file's contents: N temperature readings, each an IEEE 754 float
   stored most significant byte first (big-endian), as FITS files and
   network protocols store them. */
static const unsigned char file_bytes[4 * N] = {
    0x41, 0xa4, 0x00, 0x00, /* 20.5 */
    0x41, 0xaa, 0x00, 0x00, /* 21.25 */
    0x41, 0xa0, 0xd9, 0x7f, /* 20.1062 */
    0x41, 0xaa, 0xf5, 0xc3, /* 21.37 */
    0x41, 0xb0, 0x00, 0x00, /* 22 */
    0x41, 0xa0, 0xcc, 0xcd, /* 20.1 */
    0x41, 0x9c, 0x00, 0x00, /* 19.5 */
    0x41, 0xa8, 0x00, 0x00, /* 21 */
};

/* The float stored big-endian at b[0..3], on a host of any byte order: the
   bytes are put together by their weight, not by their place in memory
   (what ntohl() does for a 32-bit integer). */
static float float_from_big_endian(const unsigned char *b)
{
    uint32_t bits = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
                    (uint32_t)b[2] << 8 | (uint32_t)b[3];
    float f;

    memcpy(&f, &bits, sizeof f);
    return f;
}

/* One thread: seen[i] = x[i], what the kernel read, and *sum = the sum of
   x[0..n-1] in order (the same order as the host's sum, so the two sums
   of the same floats are equal). */
__global__ void total(const float *x, float *seen, float *sum, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++) {
        seen[i] = x[i];
        s += x[i];
    }
    *sum = s;
}

/* Prints "<what>: v0 v1 ..." with %g. */
static void print_floats(const char *what, const float *values, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++)
        printf(" %g", values[i]);
    printf("\n");
}

int main(void)
{
    float readings[N], seen[N], sum = 0.0f, want = 0.0f;
    float *dev_x = NULL, *dev_seen = NULL, *dev_sum = NULL;

    require_gpu_or_skip();
    /* The host reads the file right: it puts each value together from its
       big-endian bytes. */
    for (int i = 0; i < N; i++) {
        readings[i] = float_from_big_endian(file_bytes + 4 * i);
        want += readings[i];
    }
    printf("%d readings stored as big-endian floats\n", N);
    print_floats("readings on the host", readings, N);

    check_cuda(cudaMalloc((void **)&dev_x, N * sizeof(float)));
    check_cuda(cudaMalloc((void **)&dev_seen, N * sizeof(float)));
    check_cuda(cudaMalloc((void **)&dev_sum, sizeof(float)));
    /* FIX: copy the floats the host put together, which are in the
       host's byte order and the GPU's, not the file's bytes. */
    check_cuda(cudaMemcpy(dev_x, readings, sizeof readings,
                          cudaMemcpyHostToDevice));
    total<<<1, 1>>>(dev_x, dev_seen, dev_sum, N);
    check_launch();
    check_cuda(cudaMemcpy(seen, dev_seen, sizeof seen,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaMemcpy(&sum, dev_sum, sizeof sum,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev_sum));
    check_cuda(cudaFree(dev_seen));
    check_cuda(cudaFree(dev_x));

    print_floats("the kernel read", seen, N);
    printf("sum on the GPU: %g, on the host: %g\n", sum, want);
    if (sum != want) {
        printf("sum: wrong\n");
        return CLINIC_EXIT_WRONG_RESULT;
    }
    printf("sum: right\n");
    return CLINIC_EXIT_OK;
}
