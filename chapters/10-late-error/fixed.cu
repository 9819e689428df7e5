/**
 * \file fixed.cu
 * \brief Chapter 10, fixed: the launch is checked, in debug mode, so the same
 *        fault is blamed on the launch that caused it. The kernel still faults:
 *        on purpose, to show where the error is reported.
 */
/* FIX: debug mode, so check_launch() also waits for the kernel and reports a
   fault during its run. Without this line, CLINIC_DEBUG_SYNC=1 in the
   environment does the same at run time. */
#define CLINIC_DEBUG_SYNC
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
    /* FIX: check the launch at once. cudaGetLastError() catches a bad launch
       configuration; in debug mode the synchronize catches a fault while the
       kernel runs, so the error names this line instead of the copy below. */
    check_launch();
    check_cuda(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev_idx));
    check_cuda(cudaFree(out));

    printf("scatter: out[0] = %d, out[%d] = %d\n", host[0], N - 1, host[N - 1]);
    return CLINIC_EXIT_OK;
}
