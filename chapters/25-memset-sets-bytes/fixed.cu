/**
 * \file fixed.cu
 * \brief Chapter 25, fixed: a small kernel fills the buffers element by
 *        element, so every int is 1 and every float -1.0f. cudaMemset can
 *        only repeat one byte.
 */
#include <math.h>
#include "check_cuda.h"

#define N 4 /* elements in each buffer */

/* FIX: a kernel stores whole 4-byte elements: an int 1, a float -1.0f. */
__global__ void fill(int *ints, int i_value, float *floats, float f_value)
{
    ints[threadIdx.x] = i_value;
    floats[threadIdx.x] = f_value;
}

/* Prints "<what>: v0 v1 ...", a NaN as "NaN" (printf spells it -nan or nan). */
static void print_floats(const char *what, const float *values, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++) {
        if (isnan(values[i]))
            printf(" NaN");
        else
            printf(" %g", values[i]);
    }
    printf("\n");
}

/* Prints the bytes of one element in memory order (lowest address first). */
static void print_bytes(const char *what, const void *element, int size)
{
    const unsigned char *bytes = (const unsigned char *)element;
    printf("%s:", what);
    for (int i = 0; i < size; i++)
        printf(" %02x", bytes[i]);
    printf("\n");
}

/* check_ints() for floats: one line, and the number of wrong elements. */
static int check_floats(const char *what, const float *got, float want, int n)
{
    int wrong = 0, first = 0;
    for (int i = 0; i < n; i++) {
        if (!(got[i] == want)) { /* a NaN equals nothing, not even itself */
            if (wrong == 0)
                first = i;
            wrong++;
        }
    }
    if (wrong == 0) {
        printf("%s: 0 of %d elements wrong\n", what, n);
        return 0;
    }
    printf("%s: %d of %d elements wrong, first at [%d]: got ", what, wrong, n,
           first);
    if (isnan(got[first]))
        printf("NaN");
    else
        printf("%g", got[first]);
    printf(", expected %g\n", want);
    return wrong;
}

int main(void)
{
    int ints[N], want_ints[N];
    float floats[N];
    int *dev_ints = NULL;
    float *dev_floats = NULL;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++)
        want_ints[i] = 1;
    check_cuda(cudaMalloc((void **)&dev_ints, sizeof ints));
    check_cuda(cudaMalloc((void **)&dev_floats, sizeof floats));

    /* FIX: one thread per element writes the value, all 4 bytes of it. */
    fill<<<1, N>>>(dev_ints, 1, dev_floats, -1.0f);
    check_launch();

    check_cuda(cudaMemcpy(ints, dev_ints, sizeof ints,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaMemcpy(floats, dev_floats, sizeof floats,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev_floats));
    check_cuda(cudaFree(dev_ints));

    printf("ints, each meant to be 1:");
    for (int i = 0; i < N; i++)
        printf(" %d", ints[i]);
    printf("\n");
    print_bytes("bytes of ints[0]", &ints[0], sizeof ints[0]);
    print_floats("floats, each meant to be -1", floats, N);
    print_bytes("bytes of floats[0]", &floats[0], sizeof floats[0]);
    size_t wrong = check_ints("ints", ints, want_ints, N);
    wrong += check_floats("floats", floats, -1.0f, N);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
