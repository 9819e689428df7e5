/**
 * \file too_many_registers.cu
 * \brief Chapter 43, second form: 1024 threads per block, which the device
 *        allows, of a kernel that needs so many registers that 1024 of its
 *        threads do not fit in one multiprocessor. The launch is refused,
 *        and cudaDeviceSynchronize() again returns cudaSuccess.
 */
#include "check_cuda.h"

#define N 4096
#define K 96 /* values each thread keeps live at once: K registers at least */
#define STEPS 4
#define MARKER                                                                 \
    -1 /* what cudaMemset(0xff) leaves in every int; no thread writes it */

/* Mixes K values for STEPS rounds. The host runs the same code to know the
   answer; unsigned arithmetic wraps the same way on both. All K values are
   live across the loop, so the compiler keeps them in registers. */
__host__ __device__ unsigned mix(unsigned seed, int steps)
{
    unsigned v[K], sum = 0;
    for (int k = 0; k < K; k++)
        v[k] = seed + k;
    for (int s = 0; s < steps; s++) {
        for (int k = 0; k < K; k++)
            v[k] = v[k] * v[(k + 1) % K] + 1;
    }
    for (int k = 0; k < K; k++)
        sum += v[k] * (k + 1);
    return sum;
}

/* out[i] = mix(i, steps) for every i < n. */
__global__ void mix_all(int *out, int n, int steps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (int)mix(i, steps);
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
    int host[N], want[N];
    int *dev = NULL;
    cudaFuncAttributes attr;
    cudaError_t synced;
    size_t wrong;
    int block = 1024; /* the most threads per block any GPU allows */

    require_gpu_or_skip();
    for (int i = 0; i < N; i++)
        want[i] = (int)mix(i, STEPS);
    /* maxThreadsPerBlock: the largest block this kernel can launch with on
       this device, given the registers each of its threads needs. */
    check_cuda(cudaFuncGetAttributes(&attr, mix_all));
    check_cuda(cudaMalloc((void **)&dev, sizeof host));
    check_cuda(cudaMemset(dev, 0xff, sizeof host));
    printf("block of %d threads: %s this kernel's limit on this device\n",
           block, block <= attr.maxThreadsPerBlock ? "within" : "above");

    /* BUG: 1024 threads of a kernel this register-hungry do not fit, and
       only cudaDeviceSynchronize() is checked, which has nothing to report:
       the refused launch never reached the GPU. */
    mix_all<<<(N + block - 1) / block, block>>>(dev, N, STEPS);
    synced = cudaDeviceSynchronize();
    print_error("cudaDeviceSynchronize() after the launch", synced);
    check_cuda(synced);
    check_cuda(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    printf("untouched: %d of %d elements still hold the marker %d\n",
           count_equal(host, N, MARKER), N, MARKER);
    wrong = check_ints("mix_all", host, want, N);
    print_error("cudaGetLastError() at the end", cudaGetLastError());
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
