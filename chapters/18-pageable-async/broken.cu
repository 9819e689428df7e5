/**
 * \file broken.cu
 * \brief Chapter 18, broken: a pipeline of cudaMemcpyAsync() copies and
 *        kernels over four streams, with host buffers from malloc(). The
 *        copies never overlap the kernels: the pipeline takes as long as
 *        running every stage in turn.
 */
#include "check_cuda.h"
#include "clinic_wait.cuh"

#define CHUNKS 16
#define CHUNK_INTS (4 << 20) /* 4 Mi ints: 16 MiB per chunk */
#define CHUNK_BYTES ((size_t)CHUNK_INTS * sizeof(int))
#define TOTAL_INTS ((size_t)CHUNKS * CHUNK_INTS)
#define TOTAL_BYTES (TOTAL_INTS * sizeof(int))
#define STREAMS 4
#define BLOCK 256
#define YES_BELOW 0.7 /* pipeline time / serial time below this: overlapped */
#define NO_FROM 0.8   /* at or above this: not overlapped; between: undecided */

enum stage { COPY_IN, KERNEL, COPY_OUT, STAGES };

/* Writes out[i] = 2 * in[i] + 1 for its n elements, then waits on the GPU's
   clock until spin_ns have passed since it started, so the kernel lasts as
   long as the program asks, on any GPU. */
__global__ void process_chunk(const int *in, int *out, int n,
                              unsigned long long spin_ns)
{
    unsigned long long start = clinic_gpu_now_ns();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x)
        out[i] = 2 * in[i] + 1;
    clinic_gpu_wait_since_ns(start, spin_ns);
}

/* The host and device buffers of the pipeline, and how its kernels run. */
struct pipeline {
    int *host_in, *host_out; /* TOTAL_INTS each */
    int *dev_in, *dev_out;   /* TOTAL_INTS each */
    int grid;      /* blocks per kernel: as many as the GPU holds at once */
    unsigned long long spin_ns;
};

/* Milliseconds between two events that have completed. */
static float elapsed_ms(cudaEvent_t from, cudaEvent_t to)
{
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, from, to));
    return ms;
}

/* Queues one stage of one chunk on stream s. */
static void queue_stage(const struct pipeline *p, int stage, int chunk,
                        cudaStream_t s)
{
    size_t first = (size_t)chunk * CHUNK_INTS;
    if (stage == COPY_IN) {
        check_cuda(cudaMemcpyAsync(p->dev_in + first, p->host_in + first,
                                   CHUNK_BYTES, cudaMemcpyHostToDevice, s));
    } else if (stage == KERNEL) {
        process_chunk<<<p->grid, BLOCK, 0, s>>>(
            p->dev_in + first, p->dev_out + first, CHUNK_INTS, p->spin_ns);
        check_launch();
    } else {
        check_cuda(cudaMemcpyAsync(p->host_out + first, p->dev_out + first,
                                   CHUNK_BYTES, cudaMemcpyDeviceToHost, s));
    }
}

/* Runs every stage of every chunk alone on stream s, waiting for each one, and
   adds up the time of each kind of stage in stage_ms[]: the serial time. */
static void run_one_at_a_time(struct pipeline *p, cudaStream_t s,
                              double stage_ms[STAGES])
{
    cudaEvent_t before, after;
    check_cuda(cudaEventCreate(&before));
    check_cuda(cudaEventCreate(&after));
    for (int stage = 0; stage < STAGES; stage++) {
        if (stage == KERNEL) {
            /* Each kernel runs twice as long as a chunk's copy in: about as
               long as both copies of a chunk, so a pipeline could hide them
               behind it. */
            p->spin_ns = (unsigned long long)(2e6 * stage_ms[COPY_IN] / CHUNKS);
            /* The first launch also loads the kernel: keep that out of the
               times. */
            process_chunk<<<p->grid, BLOCK, 0, s>>>(p->dev_in, p->dev_out,
                                                    CHUNK_INTS, 0);
            check_launch();
            check_cuda(cudaStreamSynchronize(s));
        }
        for (int chunk = 0; chunk < CHUNKS; chunk++) {
            check_cuda(cudaEventRecord(before, s));
            queue_stage(p, stage, chunk, s);
            check_cuda(cudaEventRecord(after, s));
            check_cuda(cudaEventSynchronize(after));
            stage_ms[stage] += elapsed_ms(before, after);
        }
    }
    check_cuda(cudaEventDestroy(after));
    check_cuda(cudaEventDestroy(before));
}

/* The pipeline: chunk c goes to stream c % STREAMS, its three stages in order,
   and nothing stops the stages of different chunks from running at the same
   time. Returns how long all of it took, in milliseconds. */
static float run_pipelined(const struct pipeline *p,
                           const cudaStream_t streams[STREAMS])
{
    cudaEvent_t start, stop;
    float ms;
    check_cuda(cudaEventCreate(&start));
    check_cuda(cudaEventCreate(&stop));
    check_cuda(cudaEventRecord(start, 0));
    for (int chunk = 0; chunk < CHUNKS; chunk++)
        for (int stage = 0; stage < STAGES; stage++)
            queue_stage(p, stage, chunk, streams[chunk % STREAMS]);
    /* The legacy default stream waits for every blocking stream (chapter 08),
       so stop completes when the last chunk has been copied back. */
    check_cuda(cudaEventRecord(stop, 0));
    check_cuda(cudaEventSynchronize(stop));
    ms = elapsed_ms(start, stop);
    check_cuda(cudaEventDestroy(stop));
    check_cuda(cudaEventDestroy(start));
    return ms;
}

/* Says whether the stages overlapped, from the pipeline's share of the
   serial time. */
static void print_verdict(double share)
{
    if (share < YES_BELOW)
        printf("overlapped: yes (the pipeline took less than %.1f of the "
               "serial time)\n", YES_BELOW);
    else if (share >= NO_FROM)
        printf("overlapped: no (the pipeline took at least %.1f of the "
               "serial time)\n", NO_FROM);
    else
        printf("overlapped: UNDECIDED (the pipeline took between %.1f and "
               "%.1f of the serial time; run with --times)\n",
               YES_BELOW, NO_FROM);
}

int main(int argc, char **argv)
{
    int show_times = argc > 1 && strcmp(argv[1], "--times") == 0;
    struct pipeline p;
    cudaStream_t streams[STREAMS];
    double stage_ms[STAGES] = {0, 0, 0}, serial_ms;
    float pipelined_ms;
    int *want, blocks_per_sm, sms;
    size_t wrong;

    require_gpu_or_skip();
    /* BUG: ordinary pageable memory. The GPU's copy engines need page-locked
       memory, so the driver stages each copy through a pinned buffer, and
       cudaMemcpyAsync() into pageable memory returns only once the copy is
       done: the host cannot queue the next chunk while one still runs. */
    p.host_in = (int *)checked_malloc(TOTAL_BYTES);
    p.host_out = (int *)checked_malloc(TOTAL_BYTES);
    want = (int *)checked_malloc(TOTAL_BYTES);
    for (size_t i = 0; i < TOTAL_INTS; i++) {
        p.host_in[i] = (int)i;
        want[i] = 2 * (int)i + 1;
    }
    /* -1 everywhere: the marker of "never copied back" */
    memset(p.host_out, 0xff, TOTAL_BYTES);
    check_cuda(cudaMalloc((void **)&p.dev_in, TOTAL_BYTES));
    check_cuda(cudaMalloc((void **)&p.dev_out, TOTAL_BYTES));
    for (int k = 0; k < STREAMS; k++)
        check_cuda(cudaStreamCreate(&streams[k])); /* blocking streams */
    /* Each kernel fills the GPU and every block waits the full time, so
       kernels cannot save time by sharing the GPU: any time the pipeline
       saves comes from copies running while a kernel runs. */
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, process_chunk, BLOCK, 0));
    check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    p.grid = blocks_per_sm * sms;

    run_one_at_a_time(&p, streams[0], stage_ms);
    serial_ms = stage_ms[COPY_IN] + stage_ms[KERNEL] + stage_ms[COPY_OUT];
    /* the check below sees only the pipeline's results */
    memset(p.host_out, 0xff, TOTAL_BYTES);
    pipelined_ms = run_pipelined(&p, streams);

    printf("%d chunks of %d MiB over %d streams: copy in, kernel, copy out\n",
           CHUNKS, (int)(CHUNK_BYTES >> 20), STREAMS);
    print_verdict(pipelined_ms / serial_ms);
    if (show_times) { /* to stderr, on request: they differ on every run */
        fprintf(stderr, "serial: copy in %.1f ms (%.1f GB/s), kernels %.1f ms, "
                "copy out %.1f ms (%.1f GB/s), total %.1f ms\n",
                stage_ms[COPY_IN], TOTAL_BYTES / 1e6 / stage_ms[COPY_IN],
                stage_ms[KERNEL], stage_ms[COPY_OUT],
                TOTAL_BYTES / 1e6 / stage_ms[COPY_OUT], serial_ms);
        fprintf(stderr, "pipeline: %.1f ms, %.2f of the serial time\n",
                pipelined_ms, pipelined_ms / serial_ms);
    }
    wrong = check_ints("results", p.host_out, want, TOTAL_INTS);

    for (int k = 0; k < STREAMS; k++)
        check_cuda(cudaStreamDestroy(streams[k]));
    check_cuda(cudaFree(p.dev_out));
    check_cuda(cudaFree(p.dev_in));
    free(want);
    free(p.host_out);
    free(p.host_in);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
