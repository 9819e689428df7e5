/**
 * \file broken.cu
 * \brief Chapter 40, broken: a block sum whose last 32 partial sums are
 *        added by warp-synchronous code, a volatile pointer and no
 *        __syncwarp(), which assumes that a warp's threads run in lockstep.
 */
#include "check_cuda.h"

#define N 256   /* values: one per thread of a single block */
#define WARP 32 /* threads per warp */

/* *sum = x[0] + ... + x[N - 1]: one block of N threads. */
__global__ void block_sum(const int *x, int *sum)
{
    __shared__ int s[N];
    int t = threadIdx.x;

    s[t] = x[t];
    __syncthreads();
    /* Each step halves the partial sums, until 2 * WARP are left. */
    for (int half = N / 2; half > WARP; half /= 2) {
        if (t < half)
            s[t] += s[t + half];
        __syncthreads();
    }
    /* The last steps, by one warp, as old examples wrote them: thread t
       reads s[t + k], which thread t + k writes in the same step. */
    /* BUG: no __syncwarp() between the steps: correct only if the 32
       threads run each line together, which no GPU since Volta promises. */
    if (t < WARP) {
        volatile int *v = s;
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0)
        *sum = s[0];
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
    printf("one block of %d threads sums the values 1 to %d\n", N, N);

    check_cuda(cudaMalloc((void **)&dev_x, sizeof x));
    check_cuda(cudaMalloc((void **)&dev_sum, sizeof sum));
    check_cuda(cudaMemcpy(dev_x, x, sizeof x, cudaMemcpyHostToDevice));
    block_sum<<<1, N>>>(dev_x, dev_sum);
    check_launch();
    check_cuda(cudaMemcpy(&sum, dev_sum, sizeof sum,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev_sum));
    check_cuda(cudaFree(dev_x));

    printf("sum: %d (expected %d)\n", sum, want);
    return check_ints("sum", &sum, &want, 1) ? CLINIC_EXIT_WRONG_RESULT
                                             : CLINIC_EXIT_OK;
}
