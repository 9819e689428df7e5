/**
 * \file broken.cu
 * \brief Chapter 18, broken: pipelined copies from malloc() never overlap.
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

__global__ void process_chunk(const int *in, int *out, int n,
                              unsigned long long spin_ns)
{
    unsigned long long start = clinic_gpu_now_ns();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x)
        out[i] = 2 * in[i] + 1;
    clinic_gpu_wait_since_ns(start, spin_ns);
}

static int *host_in, *host_out, *dev_in, *dev_out; /* TOTAL_INTS each */
static int grid; /* blocks per kernel: as many as the GPU holds at once */
static unsigned long long spin_ns; /* as long as both copies of a chunk */

static void queue_stage(int stage, int chunk, cudaStream_t s)
{
    size_t first = (size_t)chunk * CHUNK_INTS;
    if (stage == KERNEL) {
        process_chunk<<<grid, BLOCK, 0, s>>>(dev_in + first, dev_out + first,
                                             CHUNK_INTS, spin_ns);
        check_launch();
    } else if (stage == COPY_IN)
        check_cuda(cudaMemcpyAsync(dev_in + first, host_in + first,
                                   CHUNK_BYTES, cudaMemcpyHostToDevice, s));
    else
        check_cuda(cudaMemcpyAsync(host_out + first, dev_out + first,
                                   CHUNK_BYTES, cudaMemcpyDeviceToHost, s));
}

int main(int argc, char **argv)
{
    int show_times = argc > 1 && strcmp(argv[1], "--times") == 0;
    int sms; /* the GPU's multiprocessors */
    cudaStream_t streams[STREAMS];
    cudaEvent_t start, stop;
    double stage_ms[STAGES] = {0, 0, 0}, serial_ms, share;
    float ms, pipelined_ms;

    require_gpu_or_skip();
    /* BUG: pageable memory: cudaMemcpyAsync() into it returns only once the
       copy is done, so the host cannot queue the next chunk meanwhile. */
    host_in = (int *)checked_malloc(TOTAL_BYTES);
    host_out = (int *)checked_malloc(TOTAL_BYTES);
    int *want = (int *)checked_malloc(TOTAL_BYTES);
    for (size_t i = 0; i < TOTAL_INTS; i++) {
        host_in[i] = (int)i;
        want[i] = 2 * (int)i + 1;
    }
    memset(host_out, 0xff, TOTAL_BYTES); /* -1: "never copied back" */
    check_cuda(cudaMalloc((void **)&dev_in, TOTAL_BYTES));
    check_cuda(cudaMalloc((void **)&dev_out, TOTAL_BYTES));
    for (int k = 0; k < STREAMS; k++)
        check_cuda(cudaStreamCreate(&streams[k])); /* blocking streams */
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &grid, process_chunk, BLOCK, 0));
    check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    grid *= sms;
    check_cuda(cudaEventCreate(&start));
    check_cuda(cudaEventCreate(&stop));
    for (int stage = 0; stage < STAGES; stage++) { /* the serial time */
        if (stage == KERNEL) { /* untimed first launch, spin_ns 0: loads it */
            queue_stage(KERNEL, 0, streams[0]);
            check_cuda(cudaStreamSynchronize(streams[0]));
            spin_ns = (unsigned long long)(2e6 * stage_ms[COPY_IN] / CHUNKS);
        }
        for (int chunk = 0; chunk < CHUNKS; chunk++) {
            check_cuda(cudaEventRecord(start, streams[0]));
            queue_stage(stage, chunk, streams[0]);
            check_cuda(cudaEventRecord(stop, streams[0]));
            check_cuda(cudaEventSynchronize(stop));
            check_cuda(cudaEventElapsedTime(&ms, start, stop));
            stage_ms[stage] += ms;
        }
    }
    serial_ms = stage_ms[COPY_IN] + stage_ms[KERNEL] + stage_ms[COPY_OUT];
    memset(host_out, 0xff, TOTAL_BYTES); /* check the pipeline's results only */
    check_cuda(cudaEventRecord(start, 0)); /* the pipeline */
    for (int chunk = 0; chunk < CHUNKS; chunk++)
        for (int stage = 0; stage < STAGES; stage++)
            queue_stage(stage, chunk, streams[chunk % STREAMS]);
    check_cuda(cudaEventRecord(stop, 0)); /* after every stream (ch. 08) */
    check_cuda(cudaEventSynchronize(stop));
    check_cuda(cudaEventElapsedTime(&pipelined_ms, start, stop));

    printf("%d chunks of %d MiB over %d streams: copy in, kernel, copy out\n",
           CHUNKS, (int)(CHUNK_BYTES >> 20), STREAMS);
    share = pipelined_ms / serial_ms;
    if (share < YES_BELOW)
        printf("overlapped: yes (the pipeline took less than %.1f of the "
               "serial time)\n", YES_BELOW);
    else if (share >= NO_FROM)
        printf("overlapped: no (the pipeline took at least %.1f of the "
               "serial time)\n", NO_FROM);
    else
        printf("overlapped: UNDECIDED (the pipeline took between %.1f and %.1f"
               " of the serial time; run with --times)\n", YES_BELOW, NO_FROM);
    if (show_times) /* to stderr, on request: they differ on every run */
        fprintf(stderr, "serial: copy in %.1f ms (%.1f GB/s), kernels %.1f ms, "
                "copy out %.1f ms (%.1f GB/s), total %.1f ms\n"
                "pipeline: %.1f ms, %.2f of the serial time\n",
                stage_ms[COPY_IN], TOTAL_BYTES / 1e6 / stage_ms[COPY_IN],
                stage_ms[KERNEL], stage_ms[COPY_OUT],
                TOTAL_BYTES / 1e6 / stage_ms[COPY_OUT], serial_ms,
                pipelined_ms, share);
    size_t wrong = check_ints("results", host_out, want, TOTAL_INTS);
    check_cuda(cudaEventDestroy(stop));
    check_cuda(cudaEventDestroy(start));
    for (int k = 0; k < STREAMS; k++)
        check_cuda(cudaStreamDestroy(streams[k]));
    check_cuda(cudaFree(dev_out));
    check_cuda(cudaFree(dev_in));
    free(want);
    free(host_out);
    free(host_in);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
