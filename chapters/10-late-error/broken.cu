/**
 * \file broken.cu
 * \brief Chapter 10, broken: a kernel faults, nothing checks its launch, and
 *        the error comes back from the next cudaMemcpy(), which gets the blame.
 */
#include "check_cuda.h"

#define N 1000
#define BAD 123 /* the one entry of the index table that is wrong */

/* Scatters: out[idx[i]] = i for every i < n. It trusts the table completely. */
__global__ void scatter(int *out, const size_t *idx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[idx[i]] = i;
}

int main(void)
{
    int host[N];
    size_t idx[N];
    int *out = NULL;
    size_t *dev_idx = NULL;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++)
        idx[i] = N - 1 - i; /* reverse the order */
    /* A wild entry, as a corrupt input file might give: 2^60 ints past the
       buffer, beyond any address the GPU can map, so one thread faults. Both
       programs share it: the lesson is where the fault is reported. */
    idx[BAD] = (size_t)1 << 60;

    check_cuda(cudaMalloc((void **)&out, sizeof host));
    check_cuda(cudaMemset(out, 0, sizeof host));
    check_cuda(cudaMalloc((void **)&dev_idx, sizeof idx));
    check_cuda(cudaMemcpy(dev_idx, idx, sizeof idx, cudaMemcpyHostToDevice));
    scatter<<<(N + 255) / 256, 256>>>(out, dev_idx, N);
    /* BUG: nothing checks the launch. A launch returns no error code, and the
       kernel runs while the host goes on, so its fault is reported by the next
       CUDA call that waits for it: the copy below gets the blame. */
    check_cuda(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev_idx));
    check_cuda(cudaFree(out));

    printf("scatter: out[0] = %d, out[%d] = %d\n", host[0], N - 1, host[N - 1]);
    return CLINIC_EXIT_OK;
}
