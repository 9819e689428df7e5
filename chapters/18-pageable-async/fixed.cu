/**
 * \file fixed.cu
 * \brief Chapter 18, fixed: the same pipeline with host buffers from
 *        cudaMallocHost(). The copies of some chunks run while the kernels of
 *        others do, and the pipeline takes well under the serial time.
 */
#include "check_cuda.h"
#include "clinic_wait.cuh"

#define CHUNKS 16
#define CHUNK_INTS (4 << 20) /* 4 Mi ints: 16 MiB per chunk */
#define CHUNK_BYTES ((size_t)CHUNK_INTS * sizeof(int))
#define TOTAL_INTS ((size_t)CHUNKS * CHUNK_INTS) /* 64 Mi ints */
#define TOTAL_BYTES (TOTAL_INTS * sizeof(int))
#define STREAMS 4

enum stage { COPY_IN, KERNEL, COPY_OUT, STAGES };

/* Writes out[i] = 2 * in[i] + 1, then keeps the GPU busy until spin_ns have
   passed since it started (clinic_wait.cuh): it lasts as long as asked. */
__global__ void process_chunk(const int *in, int *out, int n,
                              unsigned long long spin_ns)
{
    unsigned long long start = clinic_gpu_now_ns();
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = 2 * in[i] + 1;
    clinic_gpu_wait_since_ns(start, spin_ns);
}

static int *host_in, *host_out, *dev_in, *dev_out; /* TOTAL_INTS each */
static int grid; /* blocks per kernel: as many as the GPU holds at once */
static unsigned long long spin_ns; /* how long each kernel lasts */

/* Queues one stage of one chunk on stream s. */
static void queue_stage(int stage, int chunk, cudaStream_t s)
{
    size_t at = (size_t)chunk * CHUNK_INTS;
    if (stage == COPY_IN) {
        check_cuda(cudaMemcpyAsync(dev_in + at, host_in + at, CHUNK_BYTES,
                                   cudaMemcpyHostToDevice, s));
    } else if (stage == KERNEL) {
        process_chunk<<<grid, 256, 0, s>>>(dev_in + at, dev_out + at,
                                             CHUNK_INTS, spin_ns);
        check_launch();
    } else {
        check_cuda(cudaMemcpyAsync(host_out + at, dev_out + at, CHUNK_BYTES,
                                   cudaMemcpyDeviceToHost, s));
    }
}

/* Queues stages from..to-1 of every chunk, chunk c on streams[c % n]. Returns
   the milliseconds between events on the legacy default stream (chapter 08). */
static float run(int from, int to, const cudaStream_t *streams, int n)
{
    cudaEvent_t start, stop;
    float ms = 0;
    check_cuda(cudaEventCreate(&start));
    check_cuda(cudaEventCreate(&stop));
    check_cuda(cudaEventRecord(start, 0));
    for (int chunk = 0; chunk < CHUNKS; chunk++)
        for (int stage = from; stage < to; stage++)
            queue_stage(stage, chunk, streams[chunk % n]);
    check_cuda(cudaEventRecord(stop, 0));
    check_cuda(cudaEventSynchronize(stop));
    check_cuda(cudaEventElapsedTime(&ms, start, stop));
    check_cuda(cudaEventDestroy(stop));
    check_cuda(cudaEventDestroy(start));
    return ms;
}

int main(int argc, char **argv)
{
    cudaStream_t streams[STREAMS];
    float ms[STAGES], serial, share;
    int *want, per_sm, sms;
    size_t wrong;
    require_gpu_or_skip();
    /* FIX: page-locked memory: the copy engines use it directly, so the
       copies only queue, and can run while another chunk's kernel does. */
    check_cuda(cudaMallocHost((void **)&host_in, TOTAL_BYTES));
    check_cuda(cudaMallocHost((void **)&host_out, TOTAL_BYTES));
    want = (int *)checked_malloc(TOTAL_BYTES);
    for (size_t i = 0; i < TOTAL_INTS; i++) {
        host_in[i] = (int)i;
        want[i] = 2 * (int)i + 1;
    }
    check_cuda(cudaMalloc((void **)&dev_in, TOTAL_BYTES));
    check_cuda(cudaMalloc((void **)&dev_out, TOTAL_BYTES));
    for (int k = 0; k < STREAMS; k++)
        check_cuda(cudaStreamCreate(&streams[k])); /* blocking streams */
    /* Each kernel fills the GPU for its whole time, so any time the pipeline
       saves comes from copies running while a kernel runs. */
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, process_chunk, 256, 0));
    check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    grid = per_sm * sms;
    run(KERNEL, KERNEL + 1, streams, 1); /* loads the kernel, untimed */
    /* Serial: one kind of stage at a time, on one stream. Each kernel waits
       twice a chunk's copy in: about as long as both copies of a chunk. */
    ms[COPY_IN] = run(COPY_IN, KERNEL, streams, 1);
    spin_ns = (unsigned long long)(2e6 * ms[COPY_IN] / CHUNKS);
    ms[KERNEL] = run(KERNEL, COPY_OUT, streams, 1);
    ms[COPY_OUT] = run(COPY_OUT, STAGES, streams, 1);
    serial = ms[COPY_IN] + ms[KERNEL] + ms[COPY_OUT];
    memset(host_out, 0xff, TOTAL_BYTES); /* -1: "never copied back" */
    share = run(COPY_IN, STAGES, streams, STREAMS) / serial;
    printf("%d chunks of %d MiB over %d streams: copy in, kernel, copy out\n",
           CHUNKS, (int)(CHUNK_BYTES >> 20), STREAMS);
    /* share = pipeline time / serial time: below 0.7 overlapped, at or above
       0.8 not, in between undecided (the test then fails). */
    printf("overlapped: %s of the serial time%s)\n",
           share < 0.7    ? "yes (the pipeline took less than 0.7"
           : share >= 0.8 ? "no (the pipeline took at least 0.8"
                          : "UNDECIDED (the pipeline took between 0.7 and 0.8",
           share < 0.7 || share >= 0.8 ? "" : "; run with --times");
    if (argc > 1 && strcmp(argv[1], "--times") == 0) /* vary: on stderr */
        fprintf(stderr, "copy in %.1f GB/s, copy out %.1f GB/s, pipeline "
                "%.2f of the serial time\n", TOTAL_BYTES / 1e6 / ms[COPY_IN],
                TOTAL_BYTES / 1e6 / ms[COPY_OUT], share);
    wrong = check_ints("results", host_out, want, TOTAL_INTS);
    for (int k = 0; k < STREAMS; k++)
        check_cuda(cudaStreamDestroy(streams[k]));
    check_cuda(cudaFree(dev_out));
    check_cuda(cudaFree(dev_in));
    free(want);
    check_cuda(cudaFreeHost(host_out)); /* FIX: pinned memory's own free */
    check_cuda(cudaFreeHost(host_in));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
