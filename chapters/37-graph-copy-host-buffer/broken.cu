/**
 * \file broken.cu
 * \brief Chapter 37, broken: a CUDA graph, captured once, uploads a pinned
 *        host buffer in every step. The host refills the buffer and
 *        launches the next step while the last step's copy still waits to
 *        run. The copy node holds the buffer's address, not its contents:
 *        steps 0 to 2 all upload batch 3.
 */
#include "check_cuda.h"
#include "clinic_wait.cuh"

#define STEPS 4
#define N (1 << 18)          /* ints per batch: 1 MiB */
#define SPIN_NS 100000000ull /* 100 ms: far longer than filling every batch */

/* The graph's first node keeps the GPU busy for SPIN_NS (see
   clinic_wait.cuh). It stands for the work that comes before the upload in
   each step, so the copy of a step always runs after the host has moved on. */
__global__ void busy_wait(void)
{
    clinic_gpu_wait_ns(SPIN_NS);
}

/* Keeps what the step's copy brought: kept[step * N + i] = in[i]. */
__global__ void keep(int *kept, const int *in, const int *step)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    kept[(size_t)*step * N + i] = in[i];
}

/* Moves on to the next step, once keep() has read the count. */
__global__ void next_step(int *step)
{
    *step += 1;
}

/* Batch b holds the numbers b * N to b * N + N - 1, so every batch differs. */
static void fill_batch(int *buf, int b)
{
    for (int i = 0; i < N; i++)
        buf[i] = b * N + i;
}

int main(void)
{
    int *staging = NULL, *in = NULL, *kept = NULL, *step = NULL;
    int *result = (int *)checked_malloc(STEPS * N * sizeof(int));
    int *want = (int *)checked_malloc(STEPS * N * sizeof(int));
    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    size_t wrong = 0;
    char name[32];

    require_gpu_or_skip();
    for (int b = 0; b < STEPS; b++)
        fill_batch(want + b * N, b);
    check_cuda(cudaMallocHost((void **)&staging, N * sizeof(int)));
    check_cuda(cudaMalloc((void **)&in, N * sizeof(int)));
    check_cuda(cudaMalloc((void **)&kept, STEPS * N * sizeof(int)));
    check_cuda(cudaMalloc((void **)&step, sizeof(int)));
    check_cuda(cudaMemset(step, 0, sizeof(int)));
    check_cuda(cudaStreamCreate(&s));

    /* One step, captured once: nothing runs during the capture. */
    check_cuda(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    busy_wait<<<1, 1, 0, s>>>();
    check_launch();
    check_cuda(cudaMemcpyAsync(in, staging, N * sizeof(int),
                               cudaMemcpyHostToDevice, s));
    keep<<<N / 256, 256, 0, s>>>(kept, in, step);
    check_launch();
    next_step<<<1, 1, 0, s>>>(step);
    check_launch();
    check_cuda(cudaStreamEndCapture(s, &graph));
    check_cuda(cudaGraphInstantiate(&exec, graph, 0));

    for (int b = 0; b < STEPS; b++) {
        /* BUG: the graph's copy node holds staging's address, not its bytes,
           and reads it when the copy runs. The last launch's copy still
           waits behind busy_wait, and this refill replaces its data. */
        fill_batch(staging, b);
        check_cuda(cudaGraphLaunch(exec, s));
    }
    check_cuda(cudaStreamSynchronize(s));

    check_cuda(cudaMemcpy(result, kept, STEPS * N * sizeof(int),
                          cudaMemcpyDeviceToHost));
    for (int b = 0; b < STEPS; b++) {
        snprintf(name, sizeof name, "step %d", b);
        wrong += check_ints(name, result + b * N, want + b * N, N);
    }

    check_cuda(cudaGraphExecDestroy(exec));
    check_cuda(cudaGraphDestroy(graph));
    check_cuda(cudaStreamDestroy(s));
    check_cuda(cudaFree(step));
    check_cuda(cudaFree(kept));
    check_cuda(cudaFree(in));
    check_cuda(cudaFreeHost(staging));
    free(want);
    free(result);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
