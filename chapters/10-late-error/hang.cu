/**
 * \file hang.cu
 * \brief Chapter 10, a variant: "cudaMemcpy hangs". A kernel waits for a
 *        flag that nothing sets, and the copy queued behind it cannot start.
 *        Instead of blocking in cudaMemcpy(), this program queues the copy
 *        with cudaMemcpyAsync() and polls cudaStreamQuery() until a deadline,
 *        which shows what a hang looks like from the host.
 */
#include <time.h>

#include "check_cuda.h"
#include "clinic_wait.cuh"

#define DEADLINE_MS 1000 /* how long the host waits for the copy */
/* How long the kernel waits before it gives up: only so that this program
   ends. A real hang has no such limit. */
#define GIVE_UP_NS 2000000000ull

/* Waits until *ready is 1, then writes 42 to *out; -1 if it gave up. */
__global__ void consume(const volatile int *ready, int *out)
{
    unsigned long long start = clinic_gpu_now_ns();

    /* BUG: nothing ever sets *ready, so this loop never ends by itself, and
       every copy queued after the kernel waits for it. */
    while (*ready == 0) {
        if (clinic_gpu_now_ns() - start > GIVE_UP_NS) {
            *out = -1;
            return;
        }
    }
    *out = 42;
}

/* Milliseconds on the host's monotonic clock. */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
{
    int *ready = NULL, *out = NULL, *result = NULL;
    int got;
    cudaError_t state;
    double start;

    require_gpu_or_skip();
    check_cuda(cudaMalloc((void **)&ready, sizeof *ready));
    check_cuda(cudaMemset(ready, 0, sizeof *ready));
    check_cuda(cudaMalloc((void **)&out, sizeof *out));
    /* Pinned memory: a copy to pageable memory would block like cudaMemcpy. */
    check_cuda(cudaMallocHost((void **)&result, sizeof *result));
    *result = 0;

    consume<<<1, 1>>>(ready, out);
    check_launch();
    /* The copy that cudaMemcpy() would wait in: queued, not waited for. */
    check_cuda(cudaMemcpyAsync(result, out, sizeof *result,
                               cudaMemcpyDeviceToHost, 0));
    printf("kernel launched and copy queued: both returned cudaSuccess\n");

    /* Poll without blocking: cudaErrorNotReady means "still running". */
    start = now_ms();
    state = cudaStreamQuery(0);
    while (state == cudaErrorNotReady && now_ms() - start < DEADLINE_MS) {
        struct timespec nap = {0, 10 * 1000 * 1000}; /* 10 ms */
        nanosleep(&nap, NULL);
        state = cudaStreamQuery(0);
    }
    if (state != cudaErrorNotReady)
        check_cuda(state); /* a real error stops here, as in broken.cu */
    printf("after %d ms, cudaStreamQuery says %s\n", DEADLINE_MS,
           state == cudaErrorNotReady ? "cudaErrorNotReady" : "done");
    if (state == cudaErrorNotReady)
        printf("the copy has not run: the kernel before it is still busy\n");

    /* Wait for the kernel to give up, so that the program can end. */
    check_cuda(cudaStreamSynchronize(0));
    got = *result;
    printf("the kernel wrote %d (42 if its flag came, -1 if it gave up)\n",
           got);
    check_cuda(cudaFreeHost(result));
    check_cuda(cudaFree(out));
    check_cuda(cudaFree(ready));
    return got == 42 ? CLINIC_EXIT_OK : CLINIC_EXIT_WRONG_RESULT;
}
