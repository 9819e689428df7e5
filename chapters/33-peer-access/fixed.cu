/**
 * \file fixed.cu
 * \brief Chapter 33, fixed: the input is first copied from device 0 into
 *        device 1's own memory with cudaMemcpyPeer(), which needs no peer
 *        access, and the kernel on device 1 reads that copy.
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
    /* FIX: copy the input into device 1's own memory and give the kernel
       that copy: cudaMemcpyPeer() works with or without peer access. */
    int *dev_in1 = NULL;
    check_cuda(cudaMalloc((void **)&dev_in1, sizeof in));
    check_cuda(cudaMemcpyPeer(dev_in1, 1, dev_in0, 0, sizeof in));
    print_placement(dev_in1);
    twice<<<N / 256, 256>>>(dev_in1, dev_out1, N);
    check_launch();
    check_cuda(cudaDeviceSynchronize());
    check_cuda(cudaFree(dev_in1));

    check_cuda(cudaMemcpy(out, dev_out1, sizeof out, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev_out1));
    check_cuda(cudaSetDevice(0));
    check_cuda(cudaFree(dev_in0));

    wrong = check_ints("out", out, want, N);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
