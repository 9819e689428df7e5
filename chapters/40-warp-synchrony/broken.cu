/**
 * \file broken.cu
 * \brief Chapter 40, broken: one warp sums 20 values with
 *        __shfl_down_sync(); the threads with no value leave first, so
 *        some shuffles read from a thread outside the mask.
 */
#include "check_cuda.h"

#define N 20    /* values: fewer than the threads of a warp */
#define WARP 32 /* threads per warp: the kernel runs one warp */

/* *sum = x[0] + ... + x[n - 1], n <= WARP: one warp, a value a thread. */
__global__ void warp_sum(const int *x, int n, int *sum)
{
    int lane = threadIdx.x;

    /* BUG: only the n threads that hold a value stay to shuffle, and the
       mask names only them. At k = 16, threads 4 to 19 read threads 20 to
       35, outside the mask: what they get is undefined. */
    unsigned mask = __ballot_sync(0xffffffffu, lane < n);
    if (lane >= n)
        return;
    int v = x[lane];
    for (int k = WARP / 2; k > 0; k /= 2)
        v += __shfl_down_sync(mask, v, k);
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
