/**
 * \file fixed.cu
 * \brief Chapter 40, fixed: the last steps of the block sum pass the
 *        partial sums between the warp's threads with __shfl_down_sync()
 *        and a full mask, which waits for all 32 threads at every step.
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
    /* FIX: shuffles pass the sums from register to register, and the full
       mask makes each step wait until all 32 threads have reached it. */
    if (t < WARP) {
        int v = s[t] + s[t + WARP];
        for (int k = WARP / 2; k > 0; k /= 2)
            v += __shfl_down_sync(0xffffffffu, v, k);
        s[t] = v;
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
