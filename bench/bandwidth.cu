/**
 * \file bandwidth.cu
 * \brief Copy lab: how fast H2D, D2H and D2D copies run on this GPU, from
 *        pageable and from pinned host memory, for 4 KiB to 256 MiB, and what
 *        share of the PCIe link's rate that is.
 *
 * Each copy is one cudaMemcpyAsync on a stream, timed by CUDA events recorded
 * around it; after warm-up copies, the median of the repeats is reported, in
 * GB/s (1 GB = 1e9 bytes). D2D counts each byte once, although the GPU reads
 * and writes it. Every destination is checked against the pattern copied.
 *
 * The link's generation and width come from NVML, the driver's management
 * library, opened at run time, so the program still starts (and skips) where
 * there is no driver; without it, or when built without nvml.h, the link is
 * "unknown" and the share is left out.
 *
 * Usage: bandwidth [--quick] [--csv PATH]
 */
#include "check_cuda.h"
#include "bench.h"
#ifdef CLINIC_HAVE_NVML
#include <dlfcn.h>
#include <nvml.h>
#endif

#define KIB (1024ull)
#define MIB (1024ull * 1024ull)
#define LARGEST (256 * MIB)
#define MAX_REPS 21

enum direction { H2D, D2H, D2D };
enum memory { PAGEABLE, PINNED, DEVICE };
static const char *direction_names[] = {"H2D", "D2H", "D2D"};
static const char *memory_names[] = {"pageable", "pinned", "device"};

/* The series measured, in the order of the table and the CSV. */
#define SERIES 5
static const enum direction series_direction[SERIES] = { H2D, H2D, D2H, D2H,
                                                         D2D };
static const enum memory series_memory[SERIES] = { PAGEABLE, PINNED, PAGEABLE,
                                                   PINNED, DEVICE };

/* Host buffers are indexed by memory kind: [PAGEABLE] from malloc, [PINNED]
   from cudaMallocHost. */
typedef struct {
    unsigned int *host_src[2], *host_dst[2];
    unsigned int *dev_a, *dev_b;
    cudaStream_t stream;
    cudaEvent_t start, stop;
} copy_buffers;

typedef struct {
    int known;
    unsigned int gen, width;         /* the most this GPU and its slot allow */
    /* as trained when read: idle links slow down */
    unsigned int now_gen, now_width;
    /* payload rate of gen x width after line encoding */
    double gbps;
    char why[160];                   /* why it is unknown */
} pcie_link;

#ifdef CLINIC_HAVE_NVML
/* GB/s one lane carries after line encoding: GT/s x code rate / 8 bits. Gens
   1-2 use 8b/10b, 3-5 128b/130b; gen 6 sends 256-byte FLITs of which 242 carry
   TLPs and DLLPs (the rest is CRC and FEC), so its figure is approximate. */
static double lane_gbps(unsigned int gen)
{
    switch (gen) {
    case 1: return 2.5 * 8.0 / 10.0 / 8.0;
    case 2: return 5.0 * 8.0 / 10.0 / 8.0;
    case 3: return 8.0 * 128.0 / 130.0 / 8.0;
    case 4: return 16.0 * 128.0 / 130.0 / 8.0;
    case 5: return 32.0 * 128.0 / 130.0 / 8.0;
    case 6: return 64.0 * 242.0 / 256.0 / 8.0;
    default: return 0.0;
    }
}

typedef nvmlReturn_t (*nvml_init_fn)(void);
typedef const char *(*nvml_error_string_fn)(nvmlReturn_t);
typedef nvmlReturn_t (*nvml_handle_fn)(const char *, nvmlDevice_t *);
typedef nvmlReturn_t (*nvml_uint_fn)(nvmlDevice_t, unsigned int *);

/* Reads the link through NVML. The library is opened here rather than linked,
   for the reason the CUDA runtime opens the driver: a program linked to it
   would not even start on a machine without the driver, instead of skipping. */
static void read_pcie_link(int device, pcie_link *link)
{
    char bus_id[32];
    nvmlDevice_t handle;
    nvmlReturn_t r;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    memset(link, 0, sizeof *link);
    if (lib == NULL) {
        snprintf(link->why, sizeof link->why, "NVML not found: %s", dlerror());
        return;
    }
    nvml_init_fn init = (nvml_init_fn)dlsym(lib, "nvmlInit_v2");
    nvml_init_fn shutdown = (nvml_init_fn)dlsym(lib, "nvmlShutdown");
    nvml_error_string_fn error_string =
        (nvml_error_string_fn)dlsym(lib, "nvmlErrorString");
    nvml_handle_fn by_bus_id =
        (nvml_handle_fn)dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    nvml_uint_fn max_gen =
        (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetMaxPcieLinkGeneration");
    nvml_uint_fn max_width =
        (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetMaxPcieLinkWidth");
    nvml_uint_fn now_gen =
        (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetCurrPcieLinkGeneration");
    nvml_uint_fn now_width =
        (nvml_uint_fn)dlsym(lib, "nvmlDeviceGetCurrPcieLinkWidth");
    if (!init || !shutdown || !error_string || !by_bus_id || !max_gen ||
        !max_width || !now_gen || !now_width) {
        snprintf(link->why, sizeof link->why,
                 "NVML lacks a function this program uses");
        dlclose(lib);
        return;
    }
    check_cuda(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
    r = init();
    if (r == NVML_SUCCESS) {
        r = by_bus_id(bus_id, &handle);
        if (r == NVML_SUCCESS) r = max_gen(handle, &link->gen);
        if (r == NVML_SUCCESS) r = max_width(handle, &link->width);
        if (r == NVML_SUCCESS) r = now_gen(handle, &link->now_gen);
        if (r == NVML_SUCCESS) r = now_width(handle, &link->now_width);
        shutdown();
    }
    if (r != NVML_SUCCESS)
        snprintf(link->why, sizeof link->why, "NVML: %s", error_string(r));
    else if (lane_gbps(link->gen) == 0.0)
        snprintf(link->why, sizeof link->why, "no rate known for PCIe gen %u",
                 link->gen);
    else {
        link->known = 1;
        link->gbps = link->width * lane_gbps(link->gen);
    }
    dlclose(lib);
}
#else
static void read_pcie_link(int device, pcie_link *link)
{
    (void)device;
    memset(link, 0, sizeof *link);
    snprintf(link->why, sizeof link->why,
             "built without NVML (nvml.h not found)");
}
#endif

typedef struct {
    float median_ms, min_ms, max_ms;
    /* words of the destination that do not hold what was copied */
    size_t wrong;
} measurement;

/* Times `reps` copies of `bytes` in one direction after `warmups` untimed ones.
   The source holds pattern `tag` and the destination zeros, so a copy that did
   not happen, or copied the wrong bytes, shows when the destination is
   checked. */
static measurement measure(copy_buffers *b, enum direction dir, enum memory mem,
                           size_t bytes, unsigned int tag, int warmups,
                           int reps)
{
    size_t words = bytes / sizeof(unsigned int);
    /* where device data comes back to be checked */
    unsigned int *checked = b->host_dst[PINNED];
    void *src, *dst;
    cudaMemcpyKind kind;
    float ms[MAX_REPS];
    char what[64];
    measurement m;

    if (dir == H2D) {
        bench_fill(b->host_src[mem], words, tag);
        check_cuda(cudaMemsetAsync(b->dev_a, 0, bytes, b->stream));
        src = b->host_src[mem];
        dst = b->dev_a;
        kind = cudaMemcpyHostToDevice;
    } else {
        bench_fill(b->host_src[PINNED], words, tag);
        check_cuda(cudaMemcpyAsync(b->dev_a, b->host_src[PINNED], bytes,
                                   cudaMemcpyHostToDevice, b->stream));
        src = b->dev_a;
        if (dir == D2H) {
            memset(b->host_dst[mem], 0, bytes);
            dst = b->host_dst[mem];
            kind = cudaMemcpyDeviceToHost;
        } else {
            check_cuda(cudaMemsetAsync(b->dev_b, 0, bytes, b->stream));
            dst = b->dev_b;
            kind = cudaMemcpyDeviceToDevice;
        }
    }
    for (int r = -warmups; r < reps; r++) {
        float elapsed;
        check_cuda(cudaEventRecord(b->start, b->stream));
        check_cuda(cudaMemcpyAsync(dst, src, bytes, kind, b->stream));
        check_cuda(cudaEventRecord(b->stop, b->stream));
        check_cuda(cudaEventSynchronize(b->stop));
        check_cuda(cudaEventElapsedTime(&elapsed, b->start, b->stop));
        if (r >= 0)
            ms[r] = elapsed;
    }
    if (dir == D2H)
        checked = (unsigned int *)dst;
    else
        check_cuda(cudaMemcpyAsync(checked, dst, bytes, cudaMemcpyDeviceToHost,
                                   b->stream));
    check_cuda(cudaStreamSynchronize(b->stream));

    snprintf(what, sizeof what, "%s %s %zu bytes", direction_names[dir],
             memory_names[mem], bytes);
    m.wrong = bench_count_wrong(what, checked, words, tag);
    m.median_ms = bench_median(ms, reps); /* sorts ms */
    m.min_ms = ms[0];
    m.max_ms = ms[reps - 1];
    return m;
}

/* "4 KiB", "256 MiB" */
static void size_text(char *buf, size_t size, size_t bytes)
{
    if (bytes >= MIB)
        snprintf(buf, size, "%zu MiB", (size_t)(bytes / MIB));
    else
        snprintf(buf, size, "%zu KiB", (size_t)(bytes / KIB));
}

int main(int argc, char **argv)
{
    bench_options opt;
    copy_buffers b;
    pcie_link link;
    cudaDeviceProp prop;
    size_t sizes[32];
    int nsizes = 0, warmups, reps, device;
    double largest_gbps[SERIES] = {0};
    size_t wrong = 0;
    unsigned int tag = 0;
    FILE *csv;

    require_gpu_or_skip();
    bench_parse_options(argc, argv, 0, &opt);
    if (opt.quick) { /* the tests: a few sizes, the largest included */
        size_t quick_sizes[] = {4 * KIB, 64 * KIB, 1 * MIB, 16 * MIB, LARGEST};
        for (int i = 0; i < 5; i++)
            sizes[nsizes++] = quick_sizes[i];
        warmups = 1;
        reps = 5;
    } else {
        for (size_t s = 4 * KIB; s <= LARGEST; s *= 2)
            sizes[nsizes++] = s;
        warmups = 3;
        reps = MAX_REPS;
    }

    check_cuda(cudaGetDevice(&device));
    check_cuda(cudaGetDeviceProperties(&prop, device));
    for (int mem = PAGEABLE; mem <= PINNED; mem++) {
        if (mem == PAGEABLE) {
            b.host_src[mem] = (unsigned int *)checked_malloc(LARGEST);
            b.host_dst[mem] = (unsigned int *)checked_malloc(LARGEST);
        } else {
            check_cuda(cudaMallocHost((void **)&b.host_src[mem], LARGEST));
            check_cuda(cudaMallocHost((void **)&b.host_dst[mem], LARGEST));
        }
    }
    check_cuda(cudaMalloc((void **)&b.dev_a, LARGEST));
    check_cuda(cudaMalloc((void **)&b.dev_b, LARGEST));
    check_cuda(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
    check_cuda(cudaEventCreate(&b.start));
    check_cuda(cudaEventCreate(&b.stop));
    read_pcie_link(device, &link);

    printf("Copy lab: bandwidth\n");
    printf("GPU: %s\n", prop.name);
    if (link.known)
        printf(
            "PCIe link: gen %u x%u at most, %.1f GB/s after line encoding%s\n",
            link.gen, link.width, link.gbps,
            link.gen >= 6 ? " (approximate)" : "");
    else
        printf("PCIe link: unknown (%s)\n", link.why);
    printf("Each figure: median of %d copies timed with CUDA events, after %d "
           "warm-up "
           "copies; GB = 1e9 bytes\n\n",
           reps, warmups);
    printf("%-9s %-8s %7s %10s %8s %7s  %s\n", "direction", "memory", "size",
           "median ms", "GB/s", "of link", "data");

    csv = bench_open_csv(opt.csv_path,
                         "direction,memory,bytes,reps,median_ms,min_ms,max_ms,"
                         "gbps,link_gbps,link_fraction,data_ok");
    for (int s = 0; s < SERIES; s++) {
        enum direction dir = series_direction[s];
        enum memory mem = series_memory[s];
        for (int k = 0; k < nsizes; k++) {
            measurement m =
                measure(&b, dir, mem, sizes[k], ++tag, warmups, reps);
            double gbps = sizes[k] / (m.median_ms * 1e6);
            int on_link = link.known && dir != D2D;
            char size[16], share[16] = "-";
            size_text(size, sizeof size, sizes[k]);
            if (on_link)
                snprintf(share, sizeof share, "%.0f%%",
                         100.0 * gbps / link.gbps);
            printf("%-9s %-8s %7s %10.4f %8.2f %7s  %s\n", direction_names[dir],
                   memory_names[mem], size, m.median_ms, gbps, share,
                   m.wrong ? "WRONG" : "ok");
            fflush(stdout);
            if (csv) {
                fprintf(csv, "%s,%s,%zu,%d,%.6f,%.6f,%.6f,%.3f,",
                        direction_names[dir], memory_names[mem], sizes[k], reps,
                        m.median_ms, m.min_ms, m.max_ms, gbps);
                if (link.known)
                    fprintf(csv, "%.3f", link.gbps);
                fprintf(csv, ",");
                if (on_link)
                    fprintf(csv, "%.4f", gbps / link.gbps);
                fprintf(csv, ",%d\n", m.wrong == 0);
            }
            if (k == nsizes - 1)
                largest_gbps[s] = gbps;
            wrong += m.wrong;
        }
    }
    bench_close_csv(csv, opt.csv_path);

    /* series 0 and 1 are H2D pageable and pinned, 2 and 3 the same for D2H */
    printf("\nAt %llu MiB, pinned against pageable: H2D %.2fx, D2H %.2fx\n",
           LARGEST / MIB, largest_gbps[1] / largest_gbps[0],
           largest_gbps[3] / largest_gbps[2]);
    read_pcie_link(device, &link); /* again, right after the copies */
    if (link.known)
        printf("PCIe link as trained right after the copies: gen %u x%u\n",
               link.now_gen, link.now_width);

    check_cuda(cudaEventDestroy(b.stop));
    check_cuda(cudaEventDestroy(b.start));
    check_cuda(cudaStreamDestroy(b.stream));
    check_cuda(cudaFree(b.dev_b));
    check_cuda(cudaFree(b.dev_a));
    check_cuda(cudaFreeHost(b.host_dst[PINNED]));
    check_cuda(cudaFreeHost(b.host_src[PINNED]));
    free(b.host_dst[PAGEABLE]);
    free(b.host_src[PAGEABLE]);
    if (wrong) {
        printf("copied data: WRONG in %zu words\n", wrong);
        return CLINIC_EXIT_WRONG_RESULT;
    }
    printf("copied data: all correct\n");
    return CLINIC_EXIT_OK;
}
