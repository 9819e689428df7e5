/**
 * \file broken.cu
 * \brief Chapter 44, broken: main() sets the `__constant__` scale_factor
 *        that scale.cuh defines, but the kernel in scale.cu reads another
 *        variable of the same name, its own, which is still 0.
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
    /* BUG: scale_factor here is broken.cu's own copy, from the definition in
       scale.cuh. The copy succeeds, but the kernel in scale.cu reads
       scale.cu's scale_factor, which nothing has set: it is 0. */
    check_cuda(cudaMemcpyToSymbol(scale_factor, &factor, sizeof factor));
    scale_on_gpu(dev, N);
    check_cuda(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    return check_ints("scaled by 3", host, want, N) ? CLINIC_EXIT_WRONG_RESULT
                                                    : CLINIC_EXIT_OK;
}
