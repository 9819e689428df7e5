/**
 * \file buffer_by_value.cu
 * \brief Chapter 42, second form: a class that owns a device buffer (it
 *        frees it in its destructor) is passed to a kernel by value. The
 *        launch copies the object, the copy shares the buffer, and the
 *        copy's destructor frees it as soon as the launch statement ends.
 */
#include "check_cuda.h"

#define N 1024

/* A device array that frees itself: cudaMalloc in the constructor, cudaFree
   in the destructor. It declares no copy constructor, so a copy gets the
   compiler's own, which copies the pointer and not the ints. */
struct device_ints {
    int *data;
    int count;
    device_ints(int n) : data(NULL), count(n)
    {
        check_cuda(cudaMalloc((void **)&data, n * sizeof(int)));
    }
    ~device_ints()
    {
        printf("~device_ints: cudaFree of its buffer\n");
        check_cuda(cudaFree(data));
    }
};

/* Writes out.data[i] = i * i for every i < out.count. */
__global__ void squares(device_ints out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < out.count)
        out.data[i] = i * i;
}

int main(void)
{
    int host[N], want[N];
    size_t wrong;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++)
        want[i] = i * i;
    device_ints squared(N);

    /* BUG: the kernel takes the object by value, so the launch makes a copy
       of it on the host, and that copy is destroyed when the launch
       statement ends: its destructor frees the buffer both objects share. */
    printf("launch: squares<<<%d, 256>>>(squared)\n", (N + 255) / 256);
    squares<<<(N + 255) / 256, 256>>>(squared);
    check_launch();
    printf("copy back from squared.data\n");
    check_cuda(
        cudaMemcpy(host, squared.data, sizeof host, cudaMemcpyDeviceToHost));
    wrong = check_ints("squares", host, want, N);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
