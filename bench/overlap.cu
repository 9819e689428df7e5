/**
 * \file overlap.cu
 * \brief Copy lab: a balanced H2D -> kernel -> D2H pipeline split into chunks
 *        over 1 to 8 streams, timed against the serial run and against the
 *        ideal that the measured stage times allow.
 *
 * The data are cut into chunks; chunk c goes to stream c mod S, where it is
 * copied in, processed and copied out. With one stream everything runs in
 * turn: the serial run. With more, one chunk's copy-in, another's kernel and a
 * third's copy-out can run at once, on the copy engines and the SMs (the
 * program prints how many the GPU has: asyncEngineCount; an H100 has 3).
 *
 * The kernel computes 3x+1 and then waits on the GPU's nanosecond clock
 * (clinic_gpu_wait_since_ns() from common/clinic_wait.cuh), so it
 * lasts as long as one chunk's copy: its wait is tuned at run time from the
 * copy time measured with both directions copying at once, as they do in the
 * pipeline (PCIe is a little slower each way then than one way alone), which
 * makes the three stages equal where they overlap. The stage times are
 * the medians of the serial run's operations, each timed with CUDA events;
 * with C chunks the ideal is one chunk's three stages plus (C - 1) times the
 * slowest stage. Host memory is pinned, as overlap requires.
 *
 * Usage: overlap [--quick] [--csv PATH] [--timeline PATH]
 * The timeline CSV has every operation of the last repeat of each stream
 * count, in ms since the run's start event.
 */
#include "check_cuda.h"
#include "clinic_wait.cuh"
#include "bench.h"

#define MIB (1024ull * 1024ull)
#define MAX_STREAMS 8
#define MAX_REPS 5
#define STAGES 3
enum stage { STAGE_H2D, STAGE_KERNEL, STAGE_D2H };
static const char *stage_names[STAGES] = {"h2d", "kernel", "d2h"};

/* out[i] = 3 * in[i] + 1 for the chunk's n words, then busy-waits until
   spin_ns have passed since the thread started, so that a launch whose blocks
   all fit on the GPU at once lasts about spin_ns. */
__global__ void process_chunk(const unsigned int *in, unsigned int *out,
                              size_t n, unsigned long long spin_ns)
{
    unsigned long long start = clinic_gpu_now_ns();
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t i = first; i < n; i += stride)
        out[i] = 3u * in[i] + 1u;
    clinic_gpu_wait_since_ns(start, spin_ns);
}

typedef struct {
    int chunks;
    size_t chunk_words;
    unsigned int *host_in, *host_out; /* pinned */
    unsigned int *dev_in, *dev_out;
    /* exactly as many blocks as fit at once: one kernel fills the GPU */
    int blocks, threads;
    unsigned long long spin_ns;
    cudaStream_t streams[MAX_STREAMS];
    cudaEvent_t run_start, run_end, stream_done[MAX_STREAMS];
    cudaEvent_t *op_start, *op_end; /* [chunk * STAGES + stage] */
    /* the last run's events, ms since run_start */
    float *ready_ms, *end_ms;
} pipeline;

/* Queues the whole pipeline over `nstreams` streams, waits for it, and returns
   its time in ms; each operation's events land in p->ready_ms and p->end_ms.
   An operation's start event fires when its stream reaches it, which may be
   before the engine it needs is free: it marks when the operation was ready. */
static float run_pipeline(pipeline *p, int nstreams)
{
    size_t bytes = p->chunk_words * sizeof(unsigned int);
    float total;

    check_cuda(cudaEventRecord(p->run_start, p->streams[0]));
    for (int s = 1; s < nstreams; s++)
        check_cuda(cudaStreamWaitEvent(p->streams[s], p->run_start, 0));
    for (int c = 0; c < p->chunks; c++) {
        cudaStream_t s = p->streams[c % nstreams];
        size_t first = (size_t)c * p->chunk_words;
        int op = c * STAGES;
        check_cuda(cudaEventRecord(p->op_start[op + STAGE_H2D], s));
        check_cuda(cudaMemcpyAsync(p->dev_in + first, p->host_in + first, bytes,
                                   cudaMemcpyHostToDevice, s));
        check_cuda(cudaEventRecord(p->op_end[op + STAGE_H2D], s));
        check_cuda(cudaEventRecord(p->op_start[op + STAGE_KERNEL], s));
        process_chunk<<<p->blocks, p->threads, 0, s>>>(
            p->dev_in + first, p->dev_out + first, p->chunk_words, p->spin_ns);
        check_launch();
        check_cuda(cudaEventRecord(p->op_end[op + STAGE_KERNEL], s));
        check_cuda(cudaEventRecord(p->op_start[op + STAGE_D2H], s));
        check_cuda(cudaMemcpyAsync(p->host_out + first, p->dev_out + first,
                                   bytes, cudaMemcpyDeviceToHost, s));
        check_cuda(cudaEventRecord(p->op_end[op + STAGE_D2H], s));
    }
    /* the run ends when every stream is done */
    for (int s = 1; s < nstreams; s++) {
        check_cuda(cudaEventRecord(p->stream_done[s], p->streams[s]));
        check_cuda(cudaStreamWaitEvent(p->streams[0], p->stream_done[s], 0));
    }
    check_cuda(cudaEventRecord(p->run_end, p->streams[0]));
    check_cuda(cudaEventSynchronize(p->run_end));
    check_cuda(cudaEventElapsedTime(&total, p->run_start, p->run_end));
    for (int op = 0; op < p->chunks * STAGES; op++) {
        check_cuda(cudaEventElapsedTime(&p->ready_ms[op], p->run_start,
                                        p->op_start[op]));
        check_cuda(
            cudaEventElapsedTime(&p->end_ms[op], p->run_start, p->op_end[op]));
    }
    return total;
}

/* The median time of one stage over the last run's chunks. In the serial run
   each operation starts as soon as the one before it ends, so end - ready is
   how long it took. */
static float stage_median(const pipeline *p, enum stage st)
{
    float durations[256];
    for (int c = 0; c < p->chunks; c++)
        durations[c] =
            p->end_ms[c * STAGES + st] - p->ready_ms[c * STAGES + st];
    return bench_median(durations, p->chunks);
}

/* How long one chunk's copy takes while the other direction copies too, as it
   does in a running pipeline: chunk c is copied in on stream 0 while chunk c is
   copied out on stream 1. PCIe carries both directions at once, but not quite
   at the one-way rate, so this is the copy time the kernel must match for the
   three stages to be balanced. Returns the slower direction's median. */
static float both_directions_ms(pipeline *p)
{
    size_t bytes = p->chunk_words * sizeof(unsigned int);
    float in_ms[256], out_ms[256], in_median, out_median;
    for (int c = 0; c < p->chunks; c++) {
        size_t first = (size_t)c * p->chunk_words;
        int op = c * STAGES;
        check_cuda(cudaEventRecord(p->op_start[op + STAGE_H2D], p->streams[0]));
        check_cuda(cudaMemcpyAsync(p->dev_in + first, p->host_in + first, bytes,
                                   cudaMemcpyHostToDevice, p->streams[0]));
        check_cuda(cudaEventRecord(p->op_end[op + STAGE_H2D], p->streams[0]));
        check_cuda(cudaEventRecord(p->op_start[op + STAGE_D2H], p->streams[1]));
        check_cuda(cudaMemcpyAsync(p->host_out + first, p->dev_out + first,
                                   bytes, cudaMemcpyDeviceToHost,
                                   p->streams[1]));
        check_cuda(cudaEventRecord(p->op_end[op + STAGE_D2H], p->streams[1]));
    }
    check_cuda(cudaDeviceSynchronize());
    for (int c = 0; c < p->chunks; c++) {
        int op = c * STAGES;
        check_cuda(cudaEventElapsedTime(&in_ms[c], p->op_start[op + STAGE_H2D],
                                        p->op_end[op + STAGE_H2D]));
        check_cuda(cudaEventElapsedTime(&out_ms[c], p->op_start[op + STAGE_D2H],
                                        p->op_end[op + STAGE_D2H]));
    }
    in_median = bench_median(in_ms, p->chunks);
    out_median = bench_median(out_ms, p->chunks);
    return in_median > out_median ? in_median : out_median;
}

/* Counts the output words that are not 3 * input + 1. */
static size_t count_wrong(const pipeline *p, int nstreams)
{
    size_t n = (size_t)p->chunks * p->chunk_words, wrong = 0;
    for (size_t i = 0; i < n; i++) {
        if (p->host_out[i] != 3u * p->host_in[i] + 1u) {
            if (wrong == 0)
                printf("%d streams: wrong data, first at word %zu: got %u, "
                       "expected %u\n",
                       nstreams, i, p->host_out[i], 3u * p->host_in[i] + 1u);
            wrong++;
        }
    }
    return wrong;
}

/* One line per operation. An operation cannot start before the one of the same
   stage in the chunk before it has ended (copies in one direction share a copy
   engine, and one kernel fills the GPU), so that end, when later than the
   ready time, is drawn as the start. */
static void write_timeline(FILE *f, const pipeline *p, int nstreams)
{
    for (int c = 0; c < p->chunks; c++) {
        for (int st = 0; st < STAGES; st++) {
            int op = c * STAGES + st;
            float start = p->ready_ms[op];
            if (c > 0 && p->end_ms[op - STAGES] > start &&
                p->end_ms[op - STAGES] <= p->end_ms[op])
                start = p->end_ms[op - STAGES];
            fprintf(f, "%d,%d,%s,%d,%.4f,%.4f,%.4f\n", nstreams, c,
                    stage_names[st], c % nstreams, p->ready_ms[op], start,
                    p->end_ms[op]);
        }
    }
}

int main(int argc, char **argv)
{
    bench_options opt;
    pipeline p;
    cudaDeviceProp prop;
    int device, blocks_per_sm, reps;
    size_t total_words, ops;
    float times[MAX_STREAMS + 1][MAX_REPS], h2d_ms, kernel_ms, d2h_ms, copy_ms,
        slowest;
    float serial_ms, ideal_ms;
    double spin_ns;
    size_t wrong[MAX_STREAMS + 1] = {0}, all_wrong = 0;
    FILE *csv, *timeline;

    require_gpu_or_skip();
    bench_parse_options(argc, argv, 1, &opt);
    memset(&p, 0, sizeof p);
    /* Chunks large enough that the few microseconds each operation costs to
       start are small against its run time; enough of them to fill the pipe. */
    p.chunks = opt.quick ? 8 : 32;
    p.chunk_words = (opt.quick ? 2 * MIB : 32 * MIB) / sizeof(unsigned int);
    reps = opt.quick ? 2 : MAX_REPS;
    total_words = (size_t)p.chunks * p.chunk_words;
    ops = (size_t)p.chunks * STAGES; /* operations timed per run */

    check_cuda(cudaGetDevice(&device));
    check_cuda(cudaGetDeviceProperties(&prop, device));
    p.threads = 256;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, process_chunk, p.threads, 0));
    p.blocks = blocks_per_sm * prop.multiProcessorCount;
    check_cuda(cudaMallocHost((void **)&p.host_in,
                              total_words * sizeof(unsigned int)));
    check_cuda(cudaMallocHost((void **)&p.host_out,
                              total_words * sizeof(unsigned int)));
    check_cuda(
        cudaMalloc((void **)&p.dev_in, total_words * sizeof(unsigned int)));
    check_cuda(
        cudaMalloc((void **)&p.dev_out, total_words * sizeof(unsigned int)));
    for (int s = 0; s < MAX_STREAMS; s++) {
        check_cuda(
            cudaStreamCreateWithFlags(&p.streams[s], cudaStreamNonBlocking));
        check_cuda(cudaEventCreate(&p.stream_done[s]));
    }
    check_cuda(cudaEventCreate(&p.run_start));
    check_cuda(cudaEventCreate(&p.run_end));
    p.op_start = (cudaEvent_t *)checked_malloc(ops * sizeof(cudaEvent_t));
    p.op_end = (cudaEvent_t *)checked_malloc(ops * sizeof(cudaEvent_t));
    p.ready_ms = (float *)checked_malloc(ops * sizeof(float));
    p.end_ms = (float *)checked_malloc(ops * sizeof(float));
    for (int op = 0; op < p.chunks * STAGES; op++) {
        check_cuda(cudaEventCreate(&p.op_start[op]));
        check_cuda(cudaEventCreate(&p.op_end[op]));
    }
    bench_fill(p.host_in, total_words, 1);
    csv = bench_open_csv(
        opt.csv_path, "streams,chunks,chunk_bytes,reps,median_ms,min_ms,max_ms,"
                      "serial_ms,ideal_ms,speedup_vs_serial,ratio_to_ideal,"
                      "h2d_ms,kernel_ms,d2h_ms,data_ok");
    timeline =
        bench_open_csv(opt.timeline_path,
                       "streams,chunk,stage,stream,ready_ms,start_ms,end_ms");
    printf("Copy lab: overlap of copies and kernels\n");
    printf("GPU: %s, %d copy engines\n", prop.name, prop.asyncEngineCount);
    fflush(stdout);

    /* Balance the stages: warm up, measure the copies as they run in a
       pipeline, both directions at once, give the kernel that time, then
       correct the wait once by what the kernel took beyond or short of it. */
    p.spin_ns = 0;
    run_pipeline(&p, 1);
    run_pipeline(&p, 1);
    both_directions_ms(&p);
    copy_ms = both_directions_ms(&p);
    spin_ns = copy_ms * 1e6;
    p.spin_ns = (unsigned long long)spin_ns;
    run_pipeline(&p, 1);
    kernel_ms = stage_median(&p, STAGE_KERNEL);
    spin_ns += (copy_ms - kernel_ms) * 1e6;
    p.spin_ns = spin_ns > 0.0 ? (unsigned long long)spin_ns : 0ull;

    /* The runs. Repeats are the outer loop, so slow drifts touch every stream
       count. */
    for (int r = 0; r < reps; r++) {
        for (int n = 1; n <= MAX_STREAMS; n++) {
            memset(p.host_out, 0, total_words * sizeof(unsigned int));
            times[n][r] = run_pipeline(&p, n);
            wrong[n] += count_wrong(&p, n);
            /* the stage times, from a serial run */
            if (n == 1 && r == reps - 1) {
                h2d_ms = stage_median(&p, STAGE_H2D);
                kernel_ms = stage_median(&p, STAGE_KERNEL);
                d2h_ms = stage_median(&p, STAGE_D2H);
            }
            if (timeline && r == reps - 1)
                write_timeline(timeline, &p, n);
        }
    }
    bench_close_csv(timeline, opt.timeline_path);

    slowest = h2d_ms > kernel_ms ? h2d_ms : kernel_ms;
    slowest = slowest > d2h_ms ? slowest : d2h_ms;
    ideal_ms = h2d_ms + kernel_ms + d2h_ms + (p.chunks - 1) * slowest;
    serial_ms = bench_median(times[1], reps);

    printf("Pipeline: %d chunks of %zu MiB, each H2D -> kernel -> D2H; chunk c "
           "on stream c mod S; "
           "pinned host memory\n",
           p.chunks, (size_t)(p.chunk_words * sizeof(unsigned int) / MIB));
    printf("Stage times per chunk, medians of a serial run: H2D %.3f ms, "
           "kernel %.3f ms, "
           "D2H %.3f ms\n",
           h2d_ms, kernel_ms, d2h_ms);
    printf("One chunk's copy with both directions copying at once: %.3f ms; "
           "the kernel is "
           "tuned to it\n",
           copy_ms);
    printf("Ideal: one chunk's stages + %d x the slowest stage = %.3f ms\n",
           p.chunks - 1, ideal_ms);
    printf("Each figure: median of %d runs, timed with CUDA events\n\n", reps);
    printf("%7s %10s %10s %9s  %s\n", "streams", "median ms", "vs serial",
           "vs ideal", "data");

    for (int n = 1; n <= MAX_STREAMS; n++) {
        float median = bench_median(times[n], reps); /* sorts times[n] */
        printf("%7d %10.3f %9.2fx %8.2fx  %s\n", n, median, serial_ms / median,
               median / ideal_ms, wrong[n] ? "WRONG" : "ok");
        if (csv)
            fprintf(csv,
                    "%d,%d,%zu,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,"
                    "%.4f,%d\n",
                    n, p.chunks, p.chunk_words * sizeof(unsigned int), reps,
                    median, times[n][0], times[n][reps - 1], serial_ms,
                    ideal_ms, serial_ms / median, median / ideal_ms, h2d_ms,
                    kernel_ms, d2h_ms, wrong[n] == 0);
        all_wrong += wrong[n];
    }
    bench_close_csv(csv, opt.csv_path);

    for (int op = 0; op < p.chunks * STAGES; op++) {
        check_cuda(cudaEventDestroy(p.op_end[op]));
        check_cuda(cudaEventDestroy(p.op_start[op]));
    }
    free(p.end_ms);
    free(p.ready_ms);
    free(p.op_end);
    free(p.op_start);
    check_cuda(cudaEventDestroy(p.run_end));
    check_cuda(cudaEventDestroy(p.run_start));
    for (int s = 0; s < MAX_STREAMS; s++) {
        check_cuda(cudaEventDestroy(p.stream_done[s]));
        check_cuda(cudaStreamDestroy(p.streams[s]));
    }
    check_cuda(cudaFree(p.dev_out));
    check_cuda(cudaFree(p.dev_in));
    check_cuda(cudaFreeHost(p.host_out));
    check_cuda(cudaFreeHost(p.host_in));
    if (all_wrong) {
        printf("pipeline output: WRONG in %zu words\n", all_wrong);
        return CLINIC_EXIT_WRONG_RESULT;
    }
    printf("pipeline output: all correct\n");
    return CLINIC_EXIT_OK;
}
