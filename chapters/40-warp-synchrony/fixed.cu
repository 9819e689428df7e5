/**
 * \file fixed.cu
 * \brief Chapter 40, fixed: all 32 threads of the warp take part in
 *        every __shfl_down_sync(), with the full mask; a thread with no
 *        value adds 0.
 */
#include "check_cuda.h"

#define N 20    /* values: fewer than the threads of a warp */
#define WARP 32 /* threads per warp: the kernel runs one warp */

/* *sum = x[0] + ... + x[n - 1], n <= WARP: one warp, a value a thread. */
__global__ void warp_sum(const int *x, int n, int *sum)
{
    int lane = threadIdx.x;

    /* FIX: every thread stays and shuffles, with the full mask, so every
       source thread takes part; a thread with no value adds 0. */
    int v = lane < n ? x[lane] : 0;
    for (int k = WARP / 2; k > 0; k /= 2)
        v += __shfl_down_sync(0xffffffffu, v, k);
    if (lane == 0)
        *sum = v;
}

int main(void)
{
    int x[N], sum = 0, want = 0;
    int *dev_x = NULL, *dev_sum = NULL;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++) {
        x[i] = i + 1;
        want += x[i];
    }
    printf("one warp of %d threads sums %d values, 1 to %d\n", WARP, N, N);

    check_cuda(cudaMalloc((void **)&dev_x, sizeof x));
    check_cuda(cudaMalloc((void **)&dev_sum, sizeof sum));
    check_cuda(cudaMemcpy(dev_x, x, sizeof x, cudaMemcpyHostToDevice));
    warp_sum<<<1, WARP>>>(dev_x, N, dev_sum);
    check_launch();
    check_cuda(cudaMemcpy(&sum, dev_sum, sizeof sum,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev_sum));
    check_cuda(cudaFree(dev_x));

    printf("sum: %d (expected %d)\n", sum, want);
    return check_ints("sum", &sum, &want, 1) ? CLINIC_EXIT_WRONG_RESULT
                                             : CLINIC_EXIT_OK;
}
