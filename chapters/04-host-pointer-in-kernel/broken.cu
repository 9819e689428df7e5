/**
 * \file broken.cu
 * \brief Chapter 04, broken: the kernel is handed a pointer to host memory from
 *        malloc(), which the GPU cannot read. The fault is reported by the next
 *        synchronizing call, and from then on every CUDA call fails.
 */
#include "check_cuda.h"

#define N 1024

/* Writes out[i] = 2 * in[i] for every i < n. */
__global__ void doubled(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2 * in[i];
}

static int failed_steps = 0;

/* Prints what one call returned and carries on instead of exiting, so the
   output shows how far one error reaches; main() still exits non-zero. */
static void step(const char *what, cudaError_t err)
{
    printf("%-31s %s\n", what, cudaGetErrorName(err));
    if (err != cudaSuccess)
        failed_steps++;
}

int main(void)
{
    size_t size = N * sizeof(int);
    int result[N], want[N];
    int *host = NULL, *in = NULL, *out = NULL, *other = NULL, *fresh = NULL;
    int pageable = 0;
    size_t wrong;

    require_gpu_or_skip();
    check_cuda(
        cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0));
    if (pageable) { /* HMM or ATS: here a kernel may read malloc() memory */
        printf("[SKIPPED] this host's GPU can read pageable memory (HMM or "
               "ATS), so the fault cannot be shown here\n");
        return CLINIC_EXIT_SKIP;
    }
    host = (int *)checked_malloc(size);
    for (int i = 0; i < N; i++) {
        host[i] = i;
        want[i] = 2 * i;
        result[i] = -1; /* a marker: any -1 left over was never copied back */
    }
    check_cuda(cudaMalloc((void **)&out, size));
    check_cuda(cudaMalloc((void **)&other, size));

    /* BUG: in is the host buffer itself. Its address is unique in the process,
       but the GPU has no mapping for a malloc() page, so the kernel's loads
       fault. */
    in = host;
    doubled<<<(N + 255) / 256, 256>>>(in, out, N);
    step("launch (cudaGetLastError)", cudaGetLastError());
    step("cudaDeviceSynchronize", cudaDeviceSynchronize());
    step("cudaGetLastError", cudaGetLastError());
    step("cudaGetLastError again", cudaGetLastError());
    step("cudaMalloc of a new buffer", cudaMalloc((void **)&fresh, size));
    step("cudaMemcpy into another buffer",
         cudaMemcpy(other, host, size, cudaMemcpyHostToDevice));
    step("cudaMemcpy of the results",
         cudaMemcpy(result, out, size, cudaMemcpyDeviceToHost));
    wrong = check_ints("doubled", result, want, N);

    step("cudaFree of the new buffer", cudaFree(fresh));
    step("cudaFree of the other buffer", cudaFree(other));
    step("cudaFree of the results", cudaFree(out));
    free(host);
    if (failed_steps > 0)
        return CLINIC_EXIT_CUDA_ERROR;
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
