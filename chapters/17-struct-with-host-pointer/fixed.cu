/**
 * \file fixed.cu
 * \brief Chapter 17, fixed: a deep copy. The array the struct points to is
 *        copied to the device first, and the struct sent to the kernel holds
 *        that device address, so every call succeeds and every result is right.
 */
#include "check_cuda.h"

#define N 1024

/* An array and its length, passed around as one thing. */
typedef struct {
    const int *values; /* N ints: must be an address the GPU can read */
    int count;
} int_array;

/* Writes out[i] = 2 * values[i] for every element of the array *in. */
__global__ void doubled(const int_array *in, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < in->count)
        out[i] = 2 * in->values[i];
}

static int failed_steps = 0;

/* Prints what one call returned and carries on instead of exiting, so the
   output shows where the error appears and how far it reaches; main() still
   exits non-zero. */
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
    int *host_values = NULL, *out = NULL, *fresh = NULL;
    int *dev_values = NULL; /* FIX: the ints' device copy */
    int_array array;
    int_array *dev_array = NULL;
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
    host_values = (int *)checked_malloc(size);
    for (int i = 0; i < N; i++) {
        host_values[i] = i;
        want[i] = 2 * i;
        result[i] = -1; /* a marker: any -1 left over was never copied back */
    }
    check_cuda(cudaMalloc((void **)&out, size));
    check_cuda(cudaMalloc((void **)&dev_array, sizeof array));

    /* FIX: copying the struct copies the pointer, not what it points to. So
       copy the ints to the device first and put their device address in the
       struct; then the struct itself can be copied byte for byte. */
    check_cuda(cudaMalloc((void **)&dev_values, size));
    check_cuda(
        cudaMemcpy(dev_values, host_values, size, cudaMemcpyHostToDevice));
    array.values = dev_values;
    array.count = N;
    check_cuda(
        cudaMemcpy(dev_array, &array, sizeof array, cudaMemcpyHostToDevice));
    doubled<<<(N + 255) / 256, 256>>>(dev_array, out);
    step("launch (cudaGetLastError)", cudaGetLastError());
    step("cudaDeviceSynchronize", cudaDeviceSynchronize());
    step("cudaMalloc of a new buffer", cudaMalloc((void **)&fresh, size));
    step("cudaMemcpy of the results",
         cudaMemcpy(result, out, size, cudaMemcpyDeviceToHost));
    wrong = check_ints("doubled", result, want, N);

    step("cudaFree of the new buffer", cudaFree(fresh));
    step("cudaFree of the struct", cudaFree(dev_array));
    step("cudaFree of the results", cudaFree(out));
    check_cuda(cudaFree(dev_values)); /* FIX: the device copy of the ints */
    free(host_values);
    if (failed_steps > 0)
        return CLINIC_EXIT_CUDA_ERROR;
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
