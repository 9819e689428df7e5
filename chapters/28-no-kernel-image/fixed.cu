/**
 * \file fixed.cu
 * \brief Chapter 28, fixed: built with sm_75 code plus compute_75 PTX (see
 *        CMakeLists.txt), which the driver compiles for any newer GPU; the
 *        launch is checked, so a failed launch would stop the program
 *        where it happens.
 */
#include "check_cuda.h"

#define N 8 /* elements */

__constant__ int offset = 1; /* what add_offset adds; the host may change it */

/* Adds offset to each of the n ints. */
__global__ void add_offset(int *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] += offset;
}

/* Prints "<what>: v0 v1 ..." for the N values. */
static void print_values(const char *what, const int *values)
{
    printf("%s:", what);
    for (int i = 0; i < N; i++)
        printf(" %d", values[i]);
    printf("\n");
}

/* Copies in to the GPU, runs add_offset there, copies the result back and
   compares it with in + expected. Returns the number of wrong elements. */
static size_t add_on_gpu(int *dev, const int *in, int expected)
{
    int out[N], want[N];
    char what[32];

    check_cuda(cudaMemcpy(dev, in, N * sizeof(int), cudaMemcpyHostToDevice));
    add_offset<<<1, N>>>(dev, N);
    /* FIX: check the launch: "no kernel image" is reported here. */
    check_launch();
    check_cuda(cudaMemcpy(out, dev, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        want[i] = in[i] + expected;
    snprintf(what, sizeof what, "out (offset %d)", expected);
    print_values(what, out);
    return check_ints("out", out, want, N);
}

int main(void)
{
    int in[N], new_offset = 100, *dev = NULL;
    size_t wrong;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++)
        in[i] = i + 1;
    check_cuda(cudaMalloc((void **)&dev, sizeof in));
    print_values("in", in);

    wrong = add_on_gpu(dev, in, 1); /* the offset the build gave: 1 */
    /* Pass the __constant__ variable itself, as the API asks. */
    check_cuda(cudaMemcpyToSymbol(offset, &new_offset, sizeof new_offset));
    wrong += add_on_gpu(dev, in, new_offset);
    check_cuda(cudaFree(dev));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
