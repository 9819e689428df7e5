/**
 * \file broken.cu
 * \brief Chapter 33, broken: a kernel on device 1 reads an array that lives
 *        on device 0 through device 0's pointer, and peer access from
 *        device 1 to device 0 was never enabled.
 */
#include "check_cuda.h"

#define N 1024

/* out[i] = 2 * in[i] for every i < n. */
__global__ void twice(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2 * in[i];
}

/* Prints which device the kernel's input lives on and which device the
   kernel runs on (the current one). */
static void print_placement(const void *in)
{
    struct cudaPointerAttributes attr;
    int current = -1;
    check_cuda(cudaPointerGetAttributes(&attr, in));
    check_cuda(cudaGetDevice(&current));
    printf("kernel input on device %d, kernel on device %d\n", attr.device,
           current);
}

int main(void)
{
    int in[N], out[N], want[N];
    int *dev_in0 = NULL;  /* device 0's memory */
    int *dev_out1 = NULL; /* device 1's memory */
    size_t wrong;

    require_gpus_or_skip(2);
    for (int i = 0; i < N; i++) {
        in[i] = i + 1;
        out[i] = 0;
        want[i] = 2 * (i + 1);
    }

    /* Device 0 holds the input, as if an earlier step had made it there. */
    check_cuda(cudaSetDevice(0));
    check_cuda(cudaMalloc((void **)&dev_in0, sizeof in));
    check_cuda(cudaMemcpy(dev_in0, in, sizeof in, cudaMemcpyHostToDevice));

    /* Device 1 doubles it into a buffer of its own. */
    check_cuda(cudaSetDevice(1));
    check_cuda(cudaMalloc((void **)&dev_out1, sizeof out));
    check_cuda(cudaMemset(dev_out1, 0, sizeof out));
    /* BUG: the kernel runs on device 1 and dereferences device 0's
       memory, and device 1 was never given peer access to device 0. */
    print_placement(dev_in0);
    twice<<<N / 256, 256>>>(dev_in0, dev_out1, N);
    check_launch();
    check_cuda(cudaDeviceSynchronize());

    check_cuda(cudaMemcpy(out, dev_out1, sizeof out, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev_out1));
    check_cuda(cudaSetDevice(0));
    check_cuda(cudaFree(dev_in0));

    wrong = check_ints("out", out, want, N);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
