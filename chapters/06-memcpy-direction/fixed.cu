/**
 * \file fixed.cu
 * \brief Chapter 06, fixed: cudaMemcpy() gets the host buffer as destination,
 *        first, and the device buffer as source, so both read-backs bring the
 *        results home.
 */
#include "check_cuda.h"

#define N 1000

/* Writes out[i] = i + 1 for every i < n. */
__global__ void count_up(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i + 1;
}

/* Prints what a copy returned and returns 1 if it failed. The error is printed
   rather than ending the program, so that both read-backs can be seen. */
static int report(const char *what, cudaError_t err)
{
    printf("%s copy: %s\n", what, cudaGetErrorName(err));
    return err != cudaSuccess;
}

int main(void)
{
    int pageable[N], want[N]; /* ordinary (pageable) host memory */
    /* page-locked host memory, from cudaMallocHost() */
    int *pinned = NULL;
    int *dev = NULL;
    size_t bytes = N * sizeof(int);
    size_t bad = 0;
    cudaError_t err;

    require_gpu_or_skip();
    check_cuda(cudaMallocHost((void **)&pinned, bytes));
    check_cuda(cudaMalloc((void **)&dev, bytes));
    for (int i = 0; i < N; i++) {
        /* a marker: any -1 left over was never copied back */
        pageable[i] = pinned[i] = -1;
        want[i] = i + 1;
    }

    count_up<<<(N + 255) / 256, 256>>>(dev, N);
    check_launch();

    /* The results are read back into both kinds of host memory, pageable and
       pinned, with the same call: the runtime handles the two differently. */
    /* FIX: destination first, like memcpy(): the host buffer, then the device
       buffer. Now the pointers and the kind agree: device to host. */
    err = cudaMemcpy(pageable, dev, bytes, cudaMemcpyDeviceToHost);
    bad += report("pageable", err);
    bad += check_ints("pageable", pageable, want, N);

    /* FIX: the same order */
    err = cudaMemcpy(pinned, dev, bytes, cudaMemcpyDeviceToHost);
    bad += report("pinned", err);
    bad += check_ints("pinned", pinned, want, N);

    check_cuda(cudaFree(dev));
    check_cuda(cudaFreeHost(pinned));
    return bad ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
