/**
 * \file bandwidth.cu
 * \brief Copy lab: how fast H2D, D2H and D2D copies run on this GPU, from
 *        pageable and from pinned host memory, for 4 KiB to 256 MiB, and what
 *        share of the PCIe link's rate that is; with two GPUs, also copies
 *        from device 0 to device 1 (P2P), with and without peer access and
 *        staged through pinned host memory.
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
 * The P2P rows (see measure_peer()) need two GPUs. With fewer, the program
 * says so on its `Peer copies (P2P):` line and measures everything else.
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

/* The P2P rows: copies from device 0 to device 1, by path, in the order
   measured (peer access is enabled only after the first two). */
enum peer_path { PEER_OFF, STAGED, PEER_ON };
#define PEER_PATHS 3
static const char *peer_names[PEER_PATHS] = {"peer-off", "staged", "peer-on"};
/* A few sizes, the lab's largest included. */
#define PEER_SIZES 5
static const size_t peer_sizes[PEER_SIZES] = {4 * KIB, 64 * KIB, 1 * MIB,
                                              16 * MIB, LARGEST};

/* Device 1's side of the P2P rows; device 0's is in copy_buffers. */
typedef struct {
    unsigned int *dev_dst;   /* the destination, in device 1's memory */
    cudaStream_t stream;     /* device 1's */
    cudaEvent_t start, stop; /* device 1's: times the staged copy's 2nd half */
} peer_buffers;

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
   The source holds pattern `tag`; the destination is cleared right before
   the last timed copy, so a last copy that did not happen, or copied the
   wrong bytes, shows when the destination is checked. */
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
        if (r == reps - 1) { /* the copy that is checked: clear, untimed */
            if (dir == D2H)
                memset(dst, 0, bytes);
            else
                check_cuda(cudaMemsetAsync(dst, 0, bytes, b->stream));
        }
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

/* Times `reps` copies of `bytes` from device 0 (b->dev_a) to device 1
   (p->dev_dst) after `warmups` untimed ones, by one path:
   - PEER_OFF, PEER_ON: one cudaMemcpyPeerAsync on device 0's stream, between
     events on that stream, before and after peer access is enabled;
   - STAGED: device 0 to pinned host memory, then that to device 1: each half
     is timed with events on its own device's stream (events of two devices
     cannot be compared) and the two times are added, so the host's hand-over
     between the halves is not counted.
   The source holds pattern `tag`. Right before the last timed copy the
   destination (and, for STAGED, the host buffer) is cleared, and afterwards
   the destination is read back and checked: so the check passes only if
   that last copy itself delivered the data, not an earlier one. Device 0 is
   current on entry and on return; device 1 is made current for its own
   calls. */
static measurement measure_peer(copy_buffers *b, peer_buffers *p,
                                enum peer_path path, size_t bytes,
                                unsigned int tag, int warmups, int reps)
{
    size_t words = bytes / sizeof(unsigned int);
    unsigned int *staging = b->host_dst[PINNED]; /* also where data is checked */
    float ms[MAX_REPS];
    char what[64];
    measurement m;

    bench_fill(b->host_src[PINNED], words, tag);
    check_cuda(cudaMemcpyAsync(b->dev_a, b->host_src[PINNED], bytes,
                               cudaMemcpyHostToDevice, b->stream));
    check_cuda(cudaStreamSynchronize(b->stream));
    for (int r = -warmups; r < reps; r++) {
        float first, second = 0.0f;
        if (r == reps - 1) { /* the copy that is checked: clear, untimed */
            memset(staging, 0, bytes);
            check_cuda(cudaSetDevice(1));
            check_cuda(cudaMemsetAsync(p->dev_dst, 0, bytes, p->stream));
            check_cuda(cudaStreamSynchronize(p->stream));
            check_cuda(cudaSetDevice(0));
        }
        check_cuda(cudaEventRecord(b->start, b->stream));
        if (path == STAGED)
            check_cuda(cudaMemcpyAsync(staging, b->dev_a, bytes,
                                       cudaMemcpyDeviceToHost, b->stream));
        else
            check_cuda(cudaMemcpyPeerAsync(p->dev_dst, 1, b->dev_a, 0, bytes,
                                           b->stream));
        check_cuda(cudaEventRecord(b->stop, b->stream));
        check_cuda(cudaEventSynchronize(b->stop));
        check_cuda(cudaEventElapsedTime(&first, b->start, b->stop));
        if (path == STAGED) {
            check_cuda(cudaSetDevice(1));
            check_cuda(cudaEventRecord(p->start, p->stream));
            check_cuda(cudaMemcpyAsync(p->dev_dst, staging, bytes,
                                       cudaMemcpyHostToDevice, p->stream));
            check_cuda(cudaEventRecord(p->stop, p->stream));
            check_cuda(cudaEventSynchronize(p->stop));
            check_cuda(cudaEventElapsedTime(&second, p->start, p->stop));
            check_cuda(cudaSetDevice(0));
        }
        if (r >= 0)
            ms[r] = first + second;
    }
    memset(staging, 0, bytes); /* so a read-back that did not happen shows */
    check_cuda(cudaSetDevice(1));
    check_cuda(cudaMemcpyAsync(staging, p->dev_dst, bytes,
                               cudaMemcpyDeviceToHost, p->stream));
    check_cuda(cudaStreamSynchronize(p->stream));
    check_cuda(cudaSetDevice(0));

    snprintf(what, sizeof what, "P2P %s %zu bytes", peer_names[path], bytes);
    m.wrong = bench_count_wrong(what, staging, words, tag);
    m.median_ms = bench_median(ms, reps); /* sorts ms */
    m.min_ms = ms[0];
    m.max_ms = ms[reps - 1];
    return m;
}

/* How many P2P paths this host can measure (0, 2 without peer access, or
   all 3), with the line that says so in `say`. */
static int peer_plan(char *say, size_t size)
{
    int count = 0, can01 = 0, can10 = 0;
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    check_cuda(cudaGetDeviceCount(&count));
    if (count < 2) {
        snprintf(say, size, "skipped, they need 2 GPUs, the host has %d%s%s%s",
                 count, visible ? " visible (CUDA_VISIBLE_DEVICES is \"" : "",
                 visible ? visible : "", visible ? "\")" : "");
        return 0;
    }
    check_cuda(cudaDeviceCanAccessPeer(&can01, 0, 1));
    check_cuda(cudaDeviceCanAccessPeer(&can10, 1, 0));
    if (!can01 || !can10) {
        snprintf(say, size,
                 "device 0 to device 1; peer access not possible "
                 "(cudaDeviceCanAccessPeer: %d for 0 to 1, %d for 1 to 0), "
                 "so no peer-on row",
                 can01, can10);
        return 2;
    }
    snprintf(say, size, "device 0 to device 1; peer access possible both ways");
    return PEER_PATHS;
}

/* Gives devices 0 and 1 access to each other's memory. */
static void enable_peer_access(void)
{
    check_cuda(cudaSetDevice(1));
    check_cuda(cudaDeviceEnablePeerAccess(0, 0));
    check_cuda(cudaSetDevice(0));
    check_cuda(cudaDeviceEnablePeerAccess(1, 0));
}

/* "4 KiB", "256 MiB" */
static void size_text(char *buf, size_t size, size_t bytes)
{
    if (bytes >= MIB)
        snprintf(buf, size, "%zu MiB", (size_t)(bytes / MIB));
    else
        snprintf(buf, size, "%zu KiB", (size_t)(bytes / KIB));
}

/* Prints one row of the table, and of the CSV when there is one. */
static void report_row(FILE *csv, const pcie_link *link, const char *dir,
                       const char *mem, size_t bytes, int reps,
                       const measurement *m, int on_link)
{
    double gbps = bytes / (m->median_ms * 1e6);
    char size[16], share[16] = "-";
    size_text(size, sizeof size, bytes);
    if (on_link)
        snprintf(share, sizeof share, "%.0f%%", 100.0 * gbps / link->gbps);
    printf("%-9s %-8s %7s %10.4f %8.2f %7s  %s\n", dir, mem, size,
           m->median_ms, gbps, share, m->wrong ? "WRONG" : "ok");
    fflush(stdout);
    if (csv) {
        fprintf(csv, "%s,%s,%zu,%d,%.6f,%.6f,%.6f,%.3f,", dir, mem, bytes, reps,
                m->median_ms, m->min_ms, m->max_ms, gbps);
        if (link->known)
            fprintf(csv, "%.3f", link->gbps);
        fprintf(csv, ",");
        if (on_link)
            fprintf(csv, "%.4f", gbps / link->gbps);
        fprintf(csv, ",%d\n", m->wrong == 0);
    }
}

int main(int argc, char **argv)
{
    bench_options opt;
    copy_buffers b;
    peer_buffers p;
    pcie_link link;
    cudaDeviceProp prop;
    size_t sizes[32];
    int nsizes = 0, warmups, reps, device;
    double largest_gbps[SERIES] = {0};
    size_t wrong = 0;
    unsigned int tag = 0;
    FILE *csv;
    char peer_say[192];
    int peer_paths;
    double peer_largest_gbps[PEER_PATHS] = {0};

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
    /* The P2P rows copy from device 0, the device all the above belongs to
       (the current one: nothing has called cudaSetDevice()), to device 1. */
    peer_paths = peer_plan(peer_say, sizeof peer_say);
    if (peer_paths) {
        check_cuda(cudaSetDevice(1));
        check_cuda(cudaMalloc((void **)&p.dev_dst, LARGEST));
        check_cuda(cudaStreamCreateWithFlags(&p.stream, cudaStreamNonBlocking));
        check_cuda(cudaEventCreate(&p.start));
        check_cuda(cudaEventCreate(&p.stop));
        check_cuda(cudaSetDevice(0));
    }

    printf("Copy lab: bandwidth\n");
    printf("GPU: %s\n", prop.name);
    if (link.known)
        printf(
            "PCIe link: gen %u x%u at most, %.1f GB/s after line encoding%s\n",
            link.gen, link.width, link.gbps,
            link.gen >= 6 ? " (approximate)" : "");
    else
        printf("PCIe link: unknown (%s)\n", link.why);
    printf("Peer copies (P2P): %s\n", peer_say);
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
            report_row(csv, &link, direction_names[dir], memory_names[mem],
                       sizes[k], reps, &m, link.known && dir != D2D);
            if (k == nsizes - 1)
                largest_gbps[s] = sizes[k] / (m.median_ms * 1e6);
            wrong += m.wrong;
        }
    }
    for (int path = 0; path < peer_paths; path++) {
        if (path == PEER_ON)
            enable_peer_access();
        for (int k = 0; k < PEER_SIZES; k++) {
            measurement m = measure_peer(&b, &p, (enum peer_path)path,
                                         peer_sizes[k], ++tag, warmups, reps);
            report_row(csv, &link, "P2P", peer_names[path], peer_sizes[k],
                       reps, &m, 0);
            if (k == PEER_SIZES - 1)
                peer_largest_gbps[path] = peer_sizes[k] / (m.median_ms * 1e6);
            wrong += m.wrong;
        }
    }
    bench_close_csv(csv, opt.csv_path);

    /* series 0 and 1 are H2D pageable and pinned, 2 and 3 the same for D2H */
    printf("\nAt %llu MiB, pinned against pageable: H2D %.2fx, D2H %.2fx\n",
           LARGEST / MIB, largest_gbps[1] / largest_gbps[0],
           largest_gbps[3] / largest_gbps[2]);
    if (peer_paths) {
        printf("At %llu MiB, device 0 to device 1:", LARGEST / MIB);
        for (int path = 0; path < peer_paths; path++)
            printf("%s %s %.2f GB/s", path ? "," : "", peer_names[path],
                   peer_largest_gbps[path]);
        printf("\n");
    }
    read_pcie_link(device, &link); /* again, right after the copies */
    if (link.known)
        printf("PCIe link as trained right after the copies: gen %u x%u\n",
               link.now_gen, link.now_width);

    if (peer_paths) {
        check_cuda(cudaSetDevice(1));
        check_cuda(cudaEventDestroy(p.stop));
        check_cuda(cudaEventDestroy(p.start));
        check_cuda(cudaStreamDestroy(p.stream));
        check_cuda(cudaFree(p.dev_dst));
        check_cuda(cudaSetDevice(0));
    }
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
