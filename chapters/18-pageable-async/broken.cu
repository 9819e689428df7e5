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
#define SPIN_NS 2000000ull /* 2 ms a kernel: > 5 pinned copies of a chunk */
#define YES_FROM 20.0 /* overlap, % of the kernel time: from this, "yes" */
#define NO_BELOW 1.0  /* below this, "no"; in between, undecided */
/* A chunk's events, in its stream: its copy in runs from BEFORE_IN to
   AFTER_IN, its kernel on to AFTER_KERNEL, its copy out on to AFTER_OUT. */
enum mark { BEFORE_IN, AFTER_IN, AFTER_KERNEL, AFTER_OUT, MARKS };

__global__ void process_chunk(const int *in, int *out, int n,
                              unsigned long long spin_ns)
{
    unsigned long long start = clinic_gpu_now_ns();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x)
        out[i] = 2 * in[i] + 1;
    clinic_gpu_wait_since_ns(start, spin_ns);
}

/** How long (ms) chunk c's copy, mark m to m + 1, ran in chunk k's kernel. */
static double inside_ms(const float *k, const float *c, int m)
{
    double ms = fmin(k[AFTER_KERNEL], c[m + 1]) - fmax(k[AFTER_IN], c[m]);
    return ms > 0 ? ms : 0;
}

int main(int argc, char **argv)
{
    int show_times = argc > 1 && strcmp(argv[1], "--times") == 0;
    int sms; /* the GPU's multiprocessors: one block each, per kernel */
    int *host_in, *host_out, *dev_in, *dev_out; /* TOTAL_INTS each */
    cudaStream_t streams[STREAMS];
    cudaEvent_t start, marks[CHUNKS][MARKS];
    float t[CHUNKS][MARKS]; /* ms from start */
    double pipeline_ms = 0, kernel_ms = 0, overlap_ms = 0, share;

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
    check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    check_cuda(cudaEventCreate(&start));
    for (int i = 0; i < CHUNKS * MARKS; i++) /* each mark of each chunk */
        check_cuda(cudaEventCreate(&marks[i / MARKS][i % MARKS]));
    /* An untimed first launch loads the kernel: on 0 elements (no copy yet). */
    process_chunk<<<sms, BLOCK>>>(dev_in, dev_out, 0, 0);
    check_launch();
    check_cuda(cudaDeviceSynchronize());
    check_cuda(cudaEventRecord(start, 0)); /* the pipeline */
    for (int c = 0; c < CHUNKS; c++) { /* chunk c on streams[c % STREAMS] */
        cudaStream_t s = streams[c % STREAMS];
        size_t first = (size_t)c * CHUNK_INTS;
        check_cuda(cudaEventRecord(marks[c][BEFORE_IN], s));
        check_cuda(cudaMemcpyAsync(dev_in + first, host_in + first,
                                   CHUNK_BYTES, cudaMemcpyHostToDevice, s));
        check_cuda(cudaEventRecord(marks[c][AFTER_IN], s));
        process_chunk<<<sms, BLOCK, 0, s>>>(dev_in + first, dev_out + first,
                                            CHUNK_INTS, SPIN_NS);
        check_launch();
        check_cuda(cudaEventRecord(marks[c][AFTER_KERNEL], s));
        check_cuda(cudaMemcpyAsync(host_out + first, dev_out + first,
                                   CHUNK_BYTES, cudaMemcpyDeviceToHost, s));
        check_cuda(cudaEventRecord(marks[c][AFTER_OUT], s));
    }
    check_cuda(cudaDeviceSynchronize());
    for (int i = 0; i < CHUNKS * MARKS; i++)
        check_cuda(cudaEventElapsedTime(&t[i / MARKS][i % MARKS], start,
                                        marks[i / MARKS][i % MARKS]));

    /* Each copy's time inside each kernel of ANOTHER chunk, summed over the
       pairs: a stretch where two copies ran inside one kernel, or one copy
       inside two kernels, counts twice. */
    for (int k = 0; k < CHUNKS; k++) {
        pipeline_ms = fmax(pipeline_ms, t[k][AFTER_OUT]);
        kernel_ms += t[k][AFTER_KERNEL] - t[k][AFTER_IN];
        for (int c = 0; c < CHUNKS; c++)
            if (c != k) /* chunk c's copy in and copy out */
                overlap_ms += inside_ms(t[k], t[c], BEFORE_IN) +
                              inside_ms(t[k], t[c], AFTER_KERNEL);
    }
    printf("%d chunks of %d MiB over %d streams: copy in, kernel, copy out\n",
           CHUNKS, (int)(CHUNK_BYTES >> 20), STREAMS);
    share = 100 * overlap_ms / kernel_ms;
    if (share >= YES_FROM)
        printf("overlapped: yes (copies ran during other chunks' kernels)\n");
    else if (share < NO_BELOW)
        printf("overlapped: no (no copy ran during another chunk's kernel)\n");
    else
        printf("overlapped: UNDECIDED (copies ran during other chunks' kernels"
               " for %g%% to %g%% of the kernel time; run with --times)\n",
               NO_BELOW, YES_FROM);
    if (show_times) /* to stderr, on request: they differ on every run */
        fprintf(stderr, "pipeline %.2f ms, kernels %.2f ms, overlap %.2f ms "
                "(%.1f%%)\n", pipeline_ms, kernel_ms, overlap_ms, share);
    size_t wrong = check_ints("results", host_out, want, TOTAL_INTS);
    for (int i = 0; i < CHUNKS * MARKS; i++)
        check_cuda(cudaEventDestroy(marks[i / MARKS][i % MARKS]));
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
