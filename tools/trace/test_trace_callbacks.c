/** \file test_trace_callbacks.c
 *  \brief Host-only test of the trace library's callback: it feeds
 *         on_callback() the entry and exit callbacks CUPTI would give for a
 *         short program (allocations, copies, launches, a free, a failure,
 *         inner driver calls, the cap) and checks the records written.
 *
 *  The library's source is included whole so that its static state can be
 *  set up without a driver: the driver entry points are stand-ins (device
 *  memory is a range of made-up addresses), and no CUPTI function is called.
 *  Python's json module, when given as the first argument, reads every line.
 */
#include "clinic_trace.c"

#include <malloc.h>

static int failures;
static char trace[1 << 16];

#define EXPECT(cond, ...)                                         \
    do {                                                          \
        if (!(cond)) {                                            \
            failures++;                                           \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            printf(__VA_ARGS__);                                  \
            printf("\n");                                         \
        }                                                         \
    } while (0)

/* ---- stand-ins for the driver ------------------------------------------- */

#define FAKE_DEVICE 0x7e0000000000ULL /* device addresses: 1 MiB from here */
#define FAKE_FUNC ((CUfunction)0x1234)

static CUresult fake_attributes(unsigned n, CUpointer_attribute *attrs, void **data, CUdeviceptr p)
{
    int device = p >= FAKE_DEVICE && p < FAKE_DEVICE + (1 << 20);
    for (unsigned i = 0; i < n; i++) {
        if (attrs[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
            *(unsigned *)data[i] = device ? CU_MEMORYTYPE_DEVICE : 0;
        else
            *(int *)data[i] = 0;
    }
    return CUDA_SUCCESS;
}

/* The test kernel: (int *data, int n) */
static CUresult fake_param_info(CUfunction f, size_t i, size_t *off, size_t *size)
{
    static const size_t offs[] = {0, 8}, sizes[] = {8, 4};
    if (f != FAKE_FUNC)
        return CUDA_ERROR_INVALID_HANDLE;
    if (i >= 2)
        return CUDA_ERROR_INVALID_VALUE;
    *off = offs[i];
    *size = sizes[i];
    return CUDA_SUCCESS;
}

static CUresult fake_error_name(CUresult r, const char **s)
{
    *s = r == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_UNKNOWN";
    return CUDA_SUCCESS;
}

/* ---- driving the callback --------------------------------------------------- */

static uint64_t corr[16];
static int corr_top;

static void enter(CUpti_CallbackDomain dom, CUpti_CallbackId id, const char *name, void *params)
{
    CUpti_CallbackData cb;
    memset(&cb, 0, sizeof cb);
    cb.callbackSite = CUPTI_API_ENTER;
    cb.functionName = name;
    cb.functionParams = params;
    cb.correlationData = &corr[corr_top++];
    on_callback(NULL, dom, id, &cb);
}

static void leave(CUpti_CallbackDomain dom, CUpti_CallbackId id, const char *name, void *params,
                  int result, const char *symbol)
{
    CUpti_CallbackData cb;
    cudaError_t rt = (cudaError_t)result;
    CUresult drv = (CUresult)result;
    memset(&cb, 0, sizeof cb);
    cb.callbackSite = CUPTI_API_EXIT;
    cb.functionName = name;
    cb.functionParams = params;
    cb.functionReturnValue = dom == CUPTI_CB_DOMAIN_RUNTIME_API ? (void *)&rt : (void *)&drv;
    cb.symbolName = symbol;
    cb.correlationData = &corr[--corr_top];
    on_callback(NULL, dom, id, &cb);
}

#define RTD CUPTI_CB_DOMAIN_RUNTIME_API
#define DRD CUPTI_CB_DOMAIN_DRIVER_API

static void call_rt(CUpti_CallbackId id, const char *name, void *params, int result)
{
    enter(RTD, id, name, params);
    leave(RTD, id, name, params, result, NULL);
}

/* The record of the k-th line that contains needle (from 0), or "". */
static const char *line_with(const char *needle, int k)
{
    static char line[8192];
    const char *p = trace;
    while (*p) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n < sizeof line) {
            memcpy(line, p, n);
            line[n] = 0;
            if (strstr(line, needle) && k-- == 0)
                return line;
        }
        p += n + (end ? 1 : 0);
    }
    return "";
}

#define HAS(line, text) EXPECT(strstr((line), (text)) != NULL, "%s lacks %s", (line), (text))

int main(int argc, char **argv)
{
    char path[] = "/tmp/trace_callbacks_XXXXXX";
    g_fd = mkstemp(path);
    atomic_store(&g_on, 1);
    p_cuPointerGetAttributes = fake_attributes;
    p_cuFuncGetParamInfo = fake_param_info;
    p_cuGetErrorName = fake_error_name;

    /* cudaMalloc, with the driver's cuMemAlloc inside it: one record. */
    void *dev = NULL;
    cudaMalloc_v3020_params malloc_p = {&dev, 4096};
    enter(RTD, RT(cudaMalloc_v3020), "cudaMalloc", &malloc_p);
    CUdeviceptr inner = 0;
    cuMemAlloc_v2_params inner_p = {&inner, 4096};
    enter(DRD, DRV(cuMemAlloc_v2), "cuMemAlloc_v2", &inner_p);
    inner = FAKE_DEVICE;
    leave(DRD, DRV(cuMemAlloc_v2), "cuMemAlloc_v2", &inner_p, 0, NULL);
    dev = (void *)(uintptr_t)FAKE_DEVICE;
    leave(RTD, RT(cudaMalloc_v3020), "cudaMalloc", &malloc_p, 0, NULL);

    /* A struct holding a heap address, copied to the device (chapter 17). */
    int *values = malloc(64 * sizeof(int));
    struct { long n; int *values; } shallow = {64, values};
    cudaMemcpy_v3020_params htod = {dev, &shallow, sizeof shallow, cudaMemcpyHostToDevice};
    call_rt(RT(cudaMemcpy_v3020), "cudaMemcpy", &htod, 0);

    /* A launch through the driver inside the runtime's: the kernel's layout. */
    int n = 1000;
    void *args[] = {&dev, &n};
    cudaLaunchKernel_v7000_params launch = {(void *)main, {4, 1, 1}, {256, 1, 1}, args, 0, NULL};
    enter(RTD, RT(cudaLaunchKernel_v7000), "cudaLaunchKernel", &launch);
    cuLaunchKernel_params drv_launch = {FAKE_FUNC, 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL};
    enter(DRD, DRV(cuLaunchKernel), "cuLaunchKernel", &drv_launch);
    leave(DRD, DRV(cuLaunchKernel), "cuLaunchKernel", &drv_launch, 0, "_Z7squaresPii");
    leave(RTD, RT(cudaLaunchKernel_v7000), "cudaLaunchKernel", &launch, 0, "_Z7squaresPii");

    /* The same kernel given the host buffer itself (chapter 04). */
    void *host_args[] = {&values, &n};
    launch.args = host_args;
    drv_launch.kernelParams = host_args;
    enter(RTD, RT(cudaLaunchKernel_v7000), "cudaLaunchKernel", &launch);
    enter(DRD, DRV(cuLaunchKernel), "cuLaunchKernel", &drv_launch);
    leave(DRD, DRV(cuLaunchKernel), "cuLaunchKernel", &drv_launch, 0, "_Z7squaresPii");
    leave(RTD, RT(cudaLaunchKernel_v7000), "cudaLaunchKernel", &launch, 0, "_Z7squaresPii");

    /* Device to host, 4000 bytes into a 100-byte malloc block (chapter 03). */
    char *small = malloc(100);
    cudaMemcpy_v3020_params dtoh = {small, dev, 4000, cudaMemcpyDeviceToHost};
    call_rt(RT(cudaMemcpy_v3020), "cudaMemcpy", &dtoh, 0);

    /* The per-thread default stream form, stream 0. */
    cudaMemcpyAsync_v3020_params async = {small, dev, 16, cudaMemcpyDeviceToHost, NULL};
    call_rt(RT(cudaMemcpyAsync_ptsz_v7000), "cudaMemcpyAsync_ptsz", &async, 0);

    /* Free, then a copy from the freed memory (chapter 07). */
    cudaFree_v3020_params free_p = {dev};
    call_rt(RT(cudaFree_v3020), "cudaFree", &free_p, 0);
    call_rt(RT(cudaMemcpy_v3020), "cudaMemcpy", &dtoh, 0);

    /* A failing allocation (chapter 02), and an exit whose entry was not seen. */
    void *none = NULL;
    cudaMalloc_v3020_params big = {&none, (size_t)1 << 50};
    call_rt(RT(cudaMalloc_v3020), "cudaMalloc", &big, cudaErrorMemoryAllocation);
    corr[corr_top] = 0;
    corr_top++;
    leave(RTD, RT(cudaDeviceSynchronize_v3020), "cudaDeviceSynchronize", NULL, 0, NULL);

    /* Over the cap: not written, counted, and the table still follows. */
    g_max = g_records;
    void *dev2 = NULL;
    cudaMalloc_v3020_params malloc2 = {&dev2, 256};
    enter(RTD, RT(cudaMalloc_v3020), "cudaMalloc", &malloc2);
    dev2 = (void *)(uintptr_t)(FAKE_DEVICE + 8192);
    leave(RTD, RT(cudaMalloc_v3020), "cudaMalloc", &malloc2, 0, NULL);
    g_max = g_records + 1;
    cudaMemcpy_v3020_params dtoh2 = {small, dev2, 16, cudaMemcpyDeviceToHost};
    call_rt(RT(cudaMemcpy_v3020), "cudaMemcpy", &dtoh2, 0);
    write_end();

    FILE *f = fopen(path, "r");
    size_t got = fread(trace, 1, sizeof trace - 1, f);
    fclose(f);
    trace[got] = 0;

    const char *r = line_with("\"api\":\"cudaMalloc\"", 0);
    HAS(r, "\"n\":0,");
    HAS(r, "\"op\":\"alloc\",\"ptr\":\"0x7e0000000000\",\"bytes\":4096,\"mem\":\"device\"");
    EXPECT(!strstr(trace, "cuMemAlloc_v2"), "the inner driver call was written");
    r = line_with("\"kind\":1", 0);
    HAS(r, "\"src_mem\":\"pageable\"");
    HAS(r, "\"dst_mem\":\"device\",\"dst_base\":\"0x7e0000000000\",\"dst_alloc_bytes\":4096");
    HAS(r, "\"host_pointer_words\":1,\"host_pointers\":[{\"offset\":8,");
    HAS(r, "\"where\":\"heap\"");
    r = line_with("\"op\":\"launch\"", 0);
    HAS(r, "\"kernel\":\"_Z7squaresPii\",\"grid\":[4,1,1],\"block\":[256,1,1],\"shmem\":0,\"stream\":\"0x0\"");
    HAS(r, "{\"offset\":0,\"size\":8,\"value\":\"0x00007e0000000000\",\"points_to\":\"device\"}");
    HAS(r, "{\"offset\":8,\"size\":4,\"value\":\"0x000003e8\"}");
    EXPECT(!strstr(trace, "\"api\":\"cuLaunchKernel\""), "the runtime's inner launch was written");
    r = line_with("\"op\":\"launch\"", 1);
    HAS(r, "\"points_to\":\"host\",\"host_where\":\"heap\"");
    r = line_with("\"bytes\":4000", 0);
    char chunk[64];
    snprintf(chunk, sizeof chunk, "\"host_chunk\":%zu,\"host_chunk_of\":\"dst\"", malloc_usable_size(small));
    HAS(r, chunk);
    HAS(r, "\"dst_mem\":\"pageable\",\"src_mem\":\"device\"");
    r = line_with("cudaMemcpyAsync_ptsz", 0);
    HAS(r, "\"async\":true,\"stream\":\"0x2\"");
    r = line_with("\"op\":\"free\"", 0);
    HAS(r, "\"ptr\":\"0x7e0000000000\",\"mem\":\"device\"");
    r = line_with("\"bytes\":4000", 1);
    HAS(r, "\"src_mem\":\"unknown\",\"src_freed_base\":\"0x7e0000000000\",\"src_freed_bytes\":4096");
    r = line_with("cudaErrorMemoryAllocation", 0);
    HAS(r, "\"result\":2,\"error\":\"cudaErrorMemoryAllocation\"");
    HAS(r, "\"ptr\":\"0x0\"");
    EXPECT(!strstr(trace, "cudaDeviceSynchronize"), "an exit without its entry was written");
    r = line_with("\"bytes\":16,\"kind\":2,\"async\":false", 0);
    HAS(r, "\"src_base\":\"0x7e0000002000\",\"src_alloc_bytes\":256");
    char first[64]; /* line_with's line is overwritten by the next call */
    snprintf(first, sizeof first, "\"first_error\":%d",
             atoi(line_with("cudaErrorMemoryAllocation", 0) + 5));
    r = line_with("\"ev\":\"end\"", 0);
    HAS(r, "\"dropped\":{\"cudaMalloc\":1}");
    HAS(r, first);

    /* Every line is JSON, numbered 0, 1, 2, ... */
    if (argc > 1) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "%s -c \"import json,sys; r=[json.loads(l) for l in open('%s')]; "
                 "sys.exit(0 if [x['n'] for x in r] == list(range(len(r))) else 1)\"",
                 argv[1], path);
        EXPECT(system(cmd) == 0, "json.loads of every line, numbered in order:\n%s", trace);
    }
    remove(path);
    free(small);
    free(values);
    if (failures) {
        printf("%d check(s) failed; the trace:\n%s", failures, trace);
        return 1;
    }
    printf("trace callbacks: all checks passed\n");
    return 0;
}
