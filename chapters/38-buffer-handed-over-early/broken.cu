/**
 * \file broken.cu
 * \brief Chapter 38, broken: a kernel fills a send buffer, and its pointer is
 *        handed at once to a "library" that reads it on a non-blocking stream
 *        of its own: the receiver gets the buffer as it was before the kernel.
 */
#include "check_cuda.h"
#include "clinic_wait.cuh"

#define N 1024
#define SPIN_NS                                                                \
    200000000ull /* 200 ms: far longer than it takes to hand a pointer over */

/* Keeps the GPU busy for SPIN_NS (see clinic_wait.cuh), then writes the
   message, out[i] = i + 1. */
__global__ void pack_message(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    clinic_gpu_wait_ns(SPIN_NS);
    if (i < n)
        out[i] = i + 1;
}

/* The stand-in for a communication library (CUDA-aware MPI, NCCL, another
   framework): like them it moves data on a stream of its own, created
   non-blocking, and it knows nothing of the caller's streams. */
static cudaStream_t library_stream;

/* "Sends" bytes from send to recv: a device-to-device copy on the library's
   stream, finished before it returns. */
static void library_send(const int *send, int *recv, size_t bytes)
{
    check_cuda(cudaMemcpyAsync(recv, send, bytes, cudaMemcpyDeviceToDevice,
                               library_stream));
    check_cuda(cudaStreamSynchronize(library_stream));
}

int main(void)
{
    int host[N];
    int want[N];
    int *send = NULL;
    int *recv = NULL;
    size_t wrong = 0;

    require_gpu_or_skip();
    check_cuda(cudaMalloc((void **)&send, N * sizeof(int)));
    check_cuda(cudaMalloc((void **)&recv, N * sizeof(int)));
    check_cuda(cudaStreamCreateWithFlags(&library_stream,
                                         cudaStreamNonBlocking));
    /* the send buffer holds zeros, the last message, before the kernel */
    check_cuda(cudaMemset(send, 0, N * sizeof(int)));
    check_cuda(cudaMemset(recv, 0, N * sizeof(int)));
    check_cuda(cudaDeviceSynchronize());

    /* the kernel goes to the legacy default stream, stream 0 */
    pack_message<<<N / 256, 256>>>(send, N);
    check_launch();
    /* BUG: the pointer is handed over while the kernel is still running, and
       the library's non-blocking stream does not wait for stream 0: it
       copies the send buffer as it is now. */
    printf("hand-over: cudaStreamQuery(0): %s\n",
           cudaGetErrorName(cudaStreamQuery(0)));
    library_send(send, recv, N * sizeof(int));

    for (int i = 0; i < N; i++)
        want[i] = i + 1;
    check_cuda(cudaMemcpy(host, recv, sizeof host, cudaMemcpyDeviceToHost));
    wrong += check_ints("receiver", host, want, N);
    /* this copy is on stream 0, queued behind the kernel: the sender's own
       buffer does hold the message once the kernel is done */
    check_cuda(cudaMemcpy(host, send, sizeof host, cudaMemcpyDeviceToHost));
    wrong += check_ints("send buffer, read on stream 0", host, want, N);

    check_cuda(cudaStreamDestroy(library_stream));
    check_cuda(cudaFree(recv));
    check_cuda(cudaFree(send));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
