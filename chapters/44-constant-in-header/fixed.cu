/**
 * \file fixed.cu
 * \brief Chapter 44, fixed: the factor is set by a function in scale.cu, the
 *        file whose kernel reads it, so it lands in the right copy of
 *        scale_factor.
 */
#include "check_cuda.h"
#include "scale.cuh"

#define N 1000
#define FACTOR 3

int main(void)
{
    int host[N], want[N];
    int *dev = NULL;
    int factor = FACTOR;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++) {
        host[i] = i + 1;
        want[i] = FACTOR * (i + 1);
    }

    check_cuda(cudaMalloc((void **)&dev, sizeof host));
    check_cuda(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice));
    /* FIX: set the factor from the file that launches the kernel: a variable
       of a header is per file, and only scale.cu's copy reaches the kernel. */
    set_scale_factor(factor);
    scale_on_gpu(dev, N);
    check_cuda(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    return check_ints("scaled by 3", host, want, N) ? CLINIC_EXIT_WRONG_RESULT
                                                    : CLINIC_EXIT_OK;
}
