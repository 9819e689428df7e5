/**
 * \file broken.cu
 * \brief Chapter 29, broken: the host holds double values, and their bytes
 *        are copied, sized by the host array, into a buffer that the kernel
 *        reads as float, so the kernel reads halves of doubles.
 */
#include "check_cuda.h"

#define N 8          /* values */
#define FACTOR 2.0   /* a double constant: the launch converts it to float */

/* out[i] = factor * in[i] for every i < n; in and out hold floats. */
__global__ void scale(float factor, const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = factor * in[i];
}

/* Prints "<what>: v0 v1 ..." with %g. */
static void print_floats(const char *what, const float *values, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++)
        printf(" %g", values[i]);
    printf("\n");
}

/* Like check_ints() in check_cuda.h, for floats that must match exactly
   (the values here are small whole numbers and halves). */
static size_t check_floats(const char *what, const float *got,
                           const float *want, int n)
{
    size_t wrong = 0;
    int first = 0;
    for (int i = 0; i < n; i++)
        if (got[i] != want[i] && wrong++ == 0)
            first = i;
    if (wrong == 0)
        printf("%s: 0 of %d elements wrong\n", what, n);
    else
        printf("%s: %zu of %d elements wrong, first at [%d]: got %g, "
               "expected %g\n", what, wrong, n, first, got[first],
               want[first]);
    return wrong;
}

int main(void)
{
    double in[N];            /* the data, as the host program has it */
    float out[N], want[N];
    float *dev_in = NULL, *dev_out = NULL;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++) {
        in[i] = i + 1;
        want[i] = (float)(FACTOR * in[i]);
    }
    printf("%d values from 1 to %d, held as double; the kernel reads float "
           "and multiplies by %g\n", N, N, FACTOR);

    /* BUG: the kernel reads floats (4 bytes each), but this copies the
       doubles' bytes (8 each), sized by the host array: the kernel's N
       floats are the two halves of each of the first N / 2 doubles. */
    check_cuda(cudaMalloc((void **)&dev_in, sizeof in));
    check_cuda(cudaMemcpy(dev_in, in, sizeof in, cudaMemcpyHostToDevice));

    check_cuda(cudaMalloc((void **)&dev_out, N * sizeof *out));
    /* FACTOR is a double; C converts it to the float parameter because the
       kernel's declaration is in view. A Python launch has no declaration
       to convert by (README, "PyCUDA and CuPy"). */
    scale<<<1, N>>>(FACTOR, dev_in, dev_out, N);
    check_launch();
    check_cuda(cudaMemcpy(out, dev_out, N * sizeof *out,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev_in));
    check_cuda(cudaFree(dev_out));

    print_floats("out", out, N);
    size_t wrong = check_floats("out", out, want, N);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
