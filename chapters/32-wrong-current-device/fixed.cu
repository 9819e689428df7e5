/**
 * \file fixed.cu
 * \brief Chapter 32, fixed: the program makes device 1 current before it
 *        allocates, so the buffer lives on the device whose kernel fills
 *        it; cudaPointerGetAttributes() shows where each buffer is.
 */
#include "check_cuda.h"

#define N 1024
#define WORK_DEVICE 1 /* the device the work is meant for, by index */

/* out[i] = i + 1 for every i < n. */
__global__ void fill(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i + 1;
}

/* The device a pointer from cudaMalloc() belongs to, as the runtime
   recorded it when the memory was allocated. */
static int device_of(const void *p)
{
    struct cudaPointerAttributes attr;
    check_cuda(cudaPointerGetAttributes(&attr, p));
    return attr.device;
}

int main(void)
{
    int out[N], want[N];
    int *dev_out = NULL;
    int current = -1;
    size_t wrong;

    require_gpus_or_skip(2);
    for (int i = 0; i < N; i++) {
        out[i] = 0;
        want[i] = i + 1;
    }

    /* FIX: cudaMalloc() allocates on the current device: make the device
       the kernel will run on current first, then allocate. */
    check_cuda(cudaSetDevice(WORK_DEVICE));
    check_cuda(cudaMalloc((void **)&dev_out, sizeof out));
    check_cuda(cudaMemset(dev_out, 0, sizeof out));

    /* The launch goes to the current device; the buffer stays where it
       was allocated. */
    check_cuda(cudaGetDevice(&current));
    printf("buffer allocated on device %d, kernel launched on device %d\n",
           device_of(dev_out), current);
    fill<<<N / 256, 256>>>(dev_out, N);
    check_launch();
    check_cuda(cudaDeviceSynchronize());
    check_cuda(cudaMemcpy(out, dev_out, sizeof out, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev_out));

    wrong = check_ints("out", out, want, N);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
