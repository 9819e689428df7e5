/**
 * \file broken.cu
 * \brief Chapter 28, broken: built with real code for sm_75 only and no PTX
 *        (see CMakeLists.txt), so a newer GPU has no code to run for the
 *        kernel. The launch fails, nobody checks it, and the copy back
 *        returns the input. Then cudaMemcpyToSymbol(), given the variable
 *        itself, fails too: the variable lives in the code the GPU lacks.
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
    /* BUG: no check_launch(), so a launch that fails goes unnoticed. */
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
    /* BUG: only sm_75 code (CMakeLists.txt): a 7.5 GPU runs it, so skip. */
    cudaDeviceProp gpu;
    check_cuda(cudaGetDeviceProperties(&gpu, 0));
    if (gpu.major == 7 && gpu.minor == 5) {
        printf("[SKIPPED] this GPU (compute capability 7.5) runs the sm_75 "
               "code broken was built for: the bug cannot show\n");
        return CLINIC_EXIT_SKIP;
    }
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
