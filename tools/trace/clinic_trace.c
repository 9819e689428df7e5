/** \file clinic_trace.c
 *  \brief CUPTI injection library: records every CUDA runtime and driver API
 *         call of a program as JSON lines, for the clinic doctor.
 *
 *  Loaded by the CUDA driver from CUDA_INJECTION64_PATH, which calls
 *  InitializeInjection() during cuInit. With CLINIC_TRACE_DIR set, it writes
 *  CLINIC_TRACE_DIR/api-<pid>.jsonl, one record a line, each line with one
 *  write() so that a crash keeps what came before. The format is in
 *  tools/trace/FORMAT.md. It never prints: the program's output must not change.
 */
#define _GNU_SOURCE
#include "trace_core.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h> /* also the generated_*_meta.h parameter structs */

#include <dlfcn.h>
#include <execinfo.h>
#include <libgen.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clinic_cuda_errors.h" /* generated from driver_types.h: rt_errors[] */

#define RT(name) CUPTI_RUNTIME_TRACE_CBID_##name
#define DRV(name) CUPTI_DRIVER_TRACE_CBID_##name

/* Room before a record for its {"n":N, prefix, which is known only under the lock. */
#define PREFIX 40
#define RECORD_BYTES 16384
#define MAX_PARAMS 64
#define MAX_PARAM_BYTES 256
#define SCAN_BYTES 4096       /* of a host-to-device copy's data, searched for host addresses */
#define MAX_HOST_POINTERS 8
/* *correlationData marks, so that an exit whose entry was not seen (the call
 * during which CUPTI subscribed) is ignored. */
#define MARK_OUTER 0x636c696e69630001ULL
#define MARK_INNER 0x636c696e69630002ULL

/* ---- state ---------------------------------------------------------------- */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;   /* file, counters */
static pthread_mutex_t g_table_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_fd = -1;
static unsigned long long g_n;        /* next record number in the file */
static unsigned long long g_records;  /* call records written */
static long long g_first_error = -1;  /* n of the first failing call */
static unsigned long long g_max = 200000;
static atomic_int g_on;               /* logging calls */
static int g_nested;                  /* CLINIC_TRACE_NESTED: log inner calls too */
static char g_dir[4096];
static CUpti_SubscriberHandle g_sub;
static alloc_table_t g_table;
static unsigned g_rt_dropped[RT(SIZE)];
static unsigned g_drv_dropped[DRV(SIZE)];
static const char *g_rt_names[RT(SIZE)];
static const char *g_drv_names[DRV(SIZE)];

static __thread int t_depth;          /* API calls open in this thread */
/* A CUDA runtime started the driver (InitializeInjection ran inside its
 * cuInit): the driver calls this thread makes until the runtime's first API
 * call begins (or one that began unseen ends) are the runtime's own start-up,
 * not the program's, and their records get "init":true. On CUDA 13 these are
 * about 117 device queries made before the first runtime call's callback. */
static __thread int t_init_pending;
static __thread CUfunction t_func;    /* the driver launch inside a runtime launch */
static __thread int t_call_ok;         /* the call being recorded succeeded */

/* Driver entry points, looked up once: the library calls the driver only
 * from inside a callback, where its own calls are inner calls (not logged). */
static CUresult (*p_cuPointerGetAttributes)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);
static CUresult (*p_cuFuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *);
static CUresult (*p_cuKernelGetParamInfo)(CUkernel, size_t, size_t *, size_t *);
static CUresult (*p_cuGetErrorName)(CUresult, const char **);
static char *(*p_demangle)(const char *, char *, size_t *, int *);

static void lookup_driver(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
    if (!h)
        h = dlopen("libcuda.so.1", RTLD_LAZY);
    if (h) {
        *(void **)&p_cuPointerGetAttributes = dlsym(h, "cuPointerGetAttributes");
        *(void **)&p_cuFuncGetParamInfo = dlsym(h, "cuFuncGetParamInfo");
        *(void **)&p_cuKernelGetParamInfo = dlsym(h, "cuKernelGetParamInfo");
        *(void **)&p_cuGetErrorName = dlsym(h, "cuGetErrorName");
    }
}

/* The shared runtime's cudaFuncGetParamInfo, when the program uses one (a
 * static runtime is not reachable): a fallback for runtime launches. */
static cudaError_t (*rt_param_info(void))(const void *, size_t, size_t *, size_t *)
{
    static int done;
    static cudaError_t (*fn)(const void *, size_t, size_t *, size_t *);
    if (!done) {
        static const char *const libs[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
        *(void **)&fn = dlsym(RTLD_DEFAULT, "cudaFuncGetParamInfo");
        for (size_t i = 0; !fn && i < sizeof libs / sizeof *libs; i++) {
            void *h = dlopen(libs[i], RTLD_NOLOAD | RTLD_LAZY);
            if (h)
                *(void **)&fn = dlsym(h, "cudaFuncGetParamInfo");
        }
        done = 1;
    }
    return fn;
}

/* ---- writing records ------------------------------------------------------ */

static long tid(void) { return (long)syscall(SYS_gettid); }

/* Puts {"n":N, in front of the record built at buf + PREFIX and writes the
 * line with one write(). Returns the record's number. */
static unsigned long long emit(char *buf, jw_t *w, int is_call, int failed)
{
    size_t len = jw_finish(w);
    char head[PREFIX];
    unsigned long long n;
    pthread_mutex_lock(&g_lock);
    n = g_n++;
    if (is_call) {
        g_records++;
        if (failed && g_first_error < 0)
            g_first_error = (long long)n;
    }
    int h = snprintf(head, sizeof head, "{\"n\":%llu,", n);
    /* The body starts with '{': replace it by the prefix, which ends in ','. */
    char *start = buf + PREFIX - (h - 1);
    memcpy(start, head, (size_t)h);
    size_t total = (size_t)(h - 1) + len;
    if (w->first[0]) /* an empty body: {"n":N} */
        start[h - 1] = '}', start[h] = '\n', total = (size_t)h + 1;
    const char *p = start;
    while (total > 0 && g_fd >= 0) {
        ssize_t k = write(g_fd, p, total);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        p += k;
        total -= (size_t)k;
    }
    pthread_mutex_unlock(&g_lock);
    return n;
}

static void argv_array(jw_t *w)
{
    char buf[8192];
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    jw_open(w, "argv", '[');
    for (ssize_t i = 0; got > 0 && i < got;) {
        buf[got] = 0;
        jw_str(w, NULL, buf + i);
        i += (ssize_t)strlen(buf + i) + 1;
    }
    jw_close(w);
}

static void write_start(const char *cupti)
{
    char buf[RECORD_BYTES];
    char exe[4096];
    jw_t w;
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = 0;
    jw_init(&w, buf + PREFIX, sizeof buf - PREFIX);
    jw_str(&w, "ev", "start");
    jw_int(&w, "tid", tid());
    jw_int(&w, "pid", getpid());
    jw_int(&w, "ppid", getppid());
    jw_str(&w, "exe", exe);
    argv_array(&w);
    jw_str(&w, "cupti", cupti);
    jw_bool(&w, "init_in_runtime", t_init_pending);
    jw_int(&w, "format", 1);
    emit(buf, &w, 0, 0);
}

static int open_log(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/api-%d.jsonl", g_dir, (int)getpid());
    g_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    return g_fd >= 0;
}

static void write_end(void)
{
    char buf[RECORD_BYTES];
    jw_t w;
    if (!atomic_exchange(&g_on, 0))
        return;
    jw_init(&w, buf + PREFIX, sizeof buf - PREFIX);
    jw_str(&w, "ev", "end");
    jw_int(&w, "tid", tid());
    pthread_mutex_lock(&g_lock);
    jw_uint(&w, "records", g_records);
    jw_int(&w, "first_error", g_first_error);
    jw_open(&w, "dropped", '{');
    for (int i = 0; i < RT(SIZE); i++)
        if (g_rt_dropped[i])
            jw_uint(&w, g_rt_names[i] ? g_rt_names[i] : "?", g_rt_dropped[i]);
    for (int i = 0; i < DRV(SIZE); i++)
        if (g_drv_dropped[i])
            jw_uint(&w, g_drv_names[i] ? g_drv_names[i] : "?", g_drv_dropped[i]);
    jw_close(&w);
    pthread_mutex_unlock(&g_lock);
    emit(buf, &w, 0, 0);
}

/* A forked child writes its own file. */
static void after_fork(void)
{
    pthread_mutex_init(&g_lock, NULL);
    pthread_mutex_init(&g_table_lock, NULL);
    if (g_fd >= 0)
        close(g_fd);
    g_n = g_records = 0;
    g_first_error = -1;
    memset(g_rt_dropped, 0, sizeof g_rt_dropped);
    memset(g_drv_dropped, 0, sizeof g_drv_dropped);
    if (atomic_load(&g_on) && open_log())
        write_start("ok");
    else
        atomic_store(&g_on, 0);
}

/* ---- pointers ------------------------------------------------------------- */

/* Class of p for a copy: the table first; else the driver's view (memory
 * made before the library was loaded, or by a call it does not know). */
static enum mem_class classify(uintptr_t p, alloc_t *owner, int *freed)
{
    *freed = 0;
    owner->size = 0;
    pthread_mutex_lock(&g_table_lock);
    const alloc_t *a = table_find(&g_table, p);
    if (a)
        *owner = *a;
    pthread_mutex_unlock(&g_table_lock);
    if (a && owner->freed) {
        *freed = 1;
        return MEM_UNKNOWN;
    }
    if (a)
        return owner->mem;
    owner->size = 0;
    if (!p_cuPointerGetAttributes)
        return MEM_UNKNOWN;
    CUpointer_attribute attrs[2] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
    unsigned int type = 0;
    int managed = 0;
    void *data[2] = {&type, &managed};
    if (p_cuPointerGetAttributes(2, attrs, data, (CUdeviceptr)p) != CUDA_SUCCESS)
        return MEM_UNKNOWN;
    if (managed)
        return MEM_MANAGED;
    if (type == CU_MEMORYTYPE_DEVICE)
        return MEM_DEVICE;
    if (type == CU_MEMORYTYPE_HOST)
        return MEM_PINNED;
    return type == 0 ? MEM_PAGEABLE : MEM_UNKNOWN;
}

static void remember(uintptr_t base, size_t size, enum mem_class mem, int dev)
{
    if (!base)
        return;
    pthread_mutex_lock(&g_table_lock);
    table_add(&g_table, base, size, mem, dev);
    pthread_mutex_unlock(&g_table_lock);
}

/* Marks base freed; returns the class it had (or fallback when unknown). */
static enum mem_class forget(uintptr_t base, enum mem_class fallback)
{
    pthread_mutex_lock(&g_table_lock);
    const alloc_t *a = table_free(&g_table, base);
    enum mem_class m = a ? a->mem : fallback;
    pthread_mutex_unlock(&g_table_lock);
    return m;
}

/* ---- op records ----------------------------------------------------------- */

/* The stream as the API passed it; 0 in a per-thread (_ptsz/_ptds) form means
 * the per-thread default stream, written as 0x2. */
static void stream_field(jw_t *w, const char *key, const void *s, int per_thread)
{
    uintptr_t v = (uintptr_t)s;
    jw_ptr(w, key, v == 0 && per_thread ? 2 : v);
}

static void op_alloc(jw_t *w, int ok, uintptr_t ptr, size_t bytes, enum mem_class mem, int dev)
{
    jw_str(w, "op", "alloc");
    jw_ptr(w, "ptr", ok ? ptr : 0);
    jw_uint(w, "bytes", bytes);
    jw_str(w, "mem", mem_alloc_name(mem));
    if (ok)
        remember(ptr, bytes, mem, dev);
}

static void op_free(jw_t *w, int ok, uintptr_t ptr, enum mem_class fallback)
{
    jw_str(w, "op", "free");
    jw_ptr(w, "ptr", ptr);
    enum mem_class m = ok ? forget(ptr, fallback) : fallback;
    jw_str(w, "mem", mem_alloc_name(m));
}

static void op_memset(jw_t *w, uintptr_t ptr, unsigned value, int elem, size_t count, int async,
                      const void *stream, int per_thread)
{
    alloc_t owner;
    int freed;
    jw_str(w, "op", "memset");
    jw_ptr(w, "ptr", ptr);
    jw_uint(w, "value", value);
    jw_int(w, "elem", elem);
    jw_uint(w, "count", count);
    jw_uint(w, "bytes", count * (size_t)elem);
    jw_bool(w, "async", async);
    stream_field(w, "stream", stream, per_thread);
    enum mem_class m = classify(ptr, &owner, &freed);
    jw_str(w, "mem", mem_pointer_name(m));
    if (owner.size) {
        jw_ptr(w, "base", owner.base);
        jw_uint(w, "alloc_bytes", owner.size);
    }
}

/* One side of a copy: its class, and the allocation that holds it. */
static enum mem_class copy_side(jw_t *w, const char *side, uintptr_t p)
{
    char key[32];
    alloc_t owner;
    int freed;
    enum mem_class m = classify(p, &owner, &freed);
    snprintf(key, sizeof key, "%s_mem", side);
    jw_str(w, key, mem_pointer_name(m));
    if (owner.size) {
        snprintf(key, sizeof key, freed ? "%s_freed_base" : "%s_base", side);
        jw_ptr(w, key, owner.base);
        snprintf(key, sizeof key, freed ? "%s_freed_bytes" : "%s_alloc_bytes", side);
        jw_uint(w, key, owner.size);
        if (freed) {
            snprintf(key, sizeof key, "%s_freed_mem", side);
            jw_str(w, key, mem_alloc_name(owner.mem));
        }
    }
    return m;
}

/* A copy. dst or src 0 with has_dst/has_src false: a symbol's side. */
static void op_copy(jw_t *w, uintptr_t dst, int has_dst, uintptr_t src, int has_src, size_t bytes,
                    int kind, int async, const void *stream, int per_thread)
{
    enum mem_class dm = MEM_DEVICE, sm = MEM_DEVICE;
    jw_str(w, "op", "copy");
    if (has_dst)
        jw_ptr(w, "dst", dst);
    if (has_src)
        jw_ptr(w, "src", src);
    jw_uint(w, "bytes", bytes);
    jw_int(w, "kind", kind);
    jw_bool(w, "async", async);
    stream_field(w, "stream", stream, per_thread);
    if (has_dst)
        dm = copy_side(w, "dst", dst);
    else
        jw_str(w, "dst_mem", "device");
    if (has_src)
        sm = copy_side(w, "src", src);
    else
        jw_str(w, "src_mem", "device");
    /* The host side, when it is plain pageable memory: the heap chunk it starts. */
    const char *side = NULL;
    uintptr_t host = 0;
    if (has_dst && dm == MEM_PAGEABLE && kind != 1)
        side = "dst", host = dst;
    else if (has_src && sm == MEM_PAGEABLE && kind != 2)
        side = "src", host = src;
    if (side) {
        long long usable = heap_chunk_usable((const void *)host);
        if (usable >= 0) {
            jw_int(w, "host_chunk", usable);
            jw_str(w, "host_chunk_of", side);
        }
    }
    /* Host data going to the device: does it hold host addresses (a struct
     * with a pointer to host memory, copied shallowly)? The first bytes are
     * read only when the copy succeeded and the memory map says they are
     * readable. */
    int host_src = sm == MEM_PAGEABLE || sm == MEM_PINNED || sm == MEM_REGISTERED;
    int device_dst = dm == MEM_DEVICE || dm == MEM_PITCHED || dm == MEM_ASYNC || dm == MEM_MANAGED;
    if (t_call_ok && has_src && host_src && device_dst && bytes >= 8) {
        maps_t maps = {0};
        size_t len = bytes < SCAN_BYTES ? bytes : SCAN_BYTES;
        if (maps_read(&maps) == 0 && maps_readable(&maps, src, len)) {
            size_t offs[MAX_HOST_POINTERS];
            uintptr_t vals[MAX_HOST_POINTERS];
            size_t hits = scan_host_pointers(&maps, (const unsigned char *)src, len, offs, vals,
                                             MAX_HOST_POINTERS);
            jw_uint(w, "scanned_bytes", len);
            jw_uint(w, "host_pointer_words", hits);
            if (hits) {
                jw_open(w, "host_pointers", '[');
                for (size_t i = 0; i < hits && i < MAX_HOST_POINTERS; i++) {
                    jw_open(w, NULL, '{');
                    jw_uint(w, "offset", offs[i]);
                    jw_ptr(w, "value", vals[i]);
                    jw_str(w, "where", host_where_name(maps_where(&maps, vals[i])));
                    jw_close(w);
                }
                jw_close(w);
            }
        }
        maps_free(&maps);
    }
}

static void op_copy2d(jw_t *w, uintptr_t dst, size_t dpitch, uintptr_t src, size_t spitch,
                      size_t width, size_t height, int kind, int async, const void *stream,
                      int per_thread)
{
    op_copy(w, dst, 1, src, 1, width * height, kind, async, stream, per_thread);
    jw_uint(w, "dpitch", dpitch);
    jw_uint(w, "spitch", spitch);
    jw_uint(w, "width", width);
    jw_uint(w, "height", height);
}

/* A driver CUDA_MEMCPY2D: its kind from the two memory types. */
static void op_copy2d_drv(jw_t *w, const CUDA_MEMCPY2D *c, int async, const void *stream, int pt)
{
    if (!c)
        return;
    if (c->srcMemoryType == CU_MEMORYTYPE_ARRAY || c->dstMemoryType == CU_MEMORYTYPE_ARRAY)
        return; /* arrays have no address to classify */
    int sh = c->srcMemoryType == CU_MEMORYTYPE_HOST, dh = c->dstMemoryType == CU_MEMORYTYPE_HOST;
    int sd = c->srcMemoryType == CU_MEMORYTYPE_DEVICE, dd = c->dstMemoryType == CU_MEMORYTYPE_DEVICE;
    int kind = sh && dd ? 1 : sd && dh ? 2 : sd && dd ? 3 : sh && dh ? 0 : 4;
    uintptr_t src = (sh ? (uintptr_t)c->srcHost : (uintptr_t)c->srcDevice) + c->srcXInBytes +
                    c->srcY * c->srcPitch;
    uintptr_t dst = (dh ? (uintptr_t)c->dstHost : (uintptr_t)c->dstDevice) + c->dstXInBytes +
                    c->dstY * c->dstPitch;
    op_copy2d(w, dst, c->dstPitch, src, c->srcPitch, c->WidthInBytes, c->Height, kind, async,
              stream, pt);
}

/* The C++ runtime's demangler, if the process has loaded one (a Python
 * extension loads it privately, where RTLD_DEFAULT does not look; a C
 * program may have none: its kernels keep their mangled names). */
static void find_demangler(void)
{
    static int tries;
    if (p_demangle || tries > 64)
        return;
    tries++;
    *(void **)&p_demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!p_demangle) {
        void *h = dlopen("libstdc++.so.6", RTLD_NOLOAD | RTLD_LAZY);
        if (h)
            *(void **)&p_demangle = dlsym(h, "__cxa_demangle");
    }
}

static void kernel_name(jw_t *w, const char *name)
{
    if (!name)
        return;
    jw_str(w, "kernel", name);
    if (name[0] == '_' && name[1] == 'Z')
        find_demangler();
    if (p_demangle && name[0] == '_' && name[1] == 'Z') {
        int status = -1;
        char *d = p_demangle(name, NULL, NULL, &status);
        if (d && status == 0)
            jw_str(w, "kernel_demangled", d);
        free(d);
    }
}

/* What an 8-byte kernel argument points to, if it is an address the library
 * knows: an allocation of its table ("points_to": its class, or "freed"), or
 * writable host memory ("host", and "host_where": heap, stack, anon, data).
 * Other values (integers, addresses of memory made elsewhere) get nothing.
 * The memory map is read once per launch, when first needed. */
static void points_to(jw_t *w, const unsigned char *bytes, maps_t *maps, int *maps_state)
{
    uintptr_t v;
    alloc_t owner;
    memcpy(&v, bytes, sizeof v);
    if (v < 0x10000)
        return;
    pthread_mutex_lock(&g_table_lock);
    const alloc_t *a = table_find(&g_table, v);
    if (a)
        owner = *a;
    pthread_mutex_unlock(&g_table_lock);
    if (a) {
        jw_str(w, "points_to", owner.freed ? "freed" : mem_pointer_name(owner.mem));
        return;
    }
    if (*maps_state == 0)
        *maps_state = maps_read(maps) == 0 ? 1 : -1;
    if (*maps_state == 1 && maps_where(maps, v) != HOST_NONE) {
        jw_str(w, "points_to", "host");
        jw_str(w, "host_where", host_where_name(maps_where(maps, v)));
    }
}

/* The parameters' layout from the driver (f) or the shared runtime (rtfunc);
 * values from args (pointers to each value) or from the packed buffer of a
 * driver launch's extra[]. */
static void launch_params(jw_t *w, CUfunction f, const void *rtfunc, void **args, void **extra)
{
    const unsigned char *packed = NULL;
    size_t packed_size = 0;
    for (int i = 0; extra && i < 16 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            packed = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
            packed_size = *(size_t *)extra[i + 1];
        else
            break;
    }
    cudaError_t (*rtinfo)(const void *, size_t, size_t *, size_t *) = NULL;
    int use_kernel = 0;
    size_t off = 0, size = 0;
    int first;
    if (f && p_cuFuncGetParamInfo) {
        CUresult r = p_cuFuncGetParamInfo(f, 0, &off, &size);
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE && p_cuKernelGetParamInfo) {
            CUresult r2 = p_cuKernelGetParamInfo((CUkernel)f, 0, &off, &size);
            if (r2 == CUDA_SUCCESS || r2 == CUDA_ERROR_INVALID_VALUE)
                use_kernel = 1, r = r2;
        }
        if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE) {
            jw_int(w, "params_error", r);
            return;
        }
        first = r == CUDA_SUCCESS;
    } else if (rtfunc && (rtinfo = rt_param_info()) != NULL) {
        cudaError_t r = rtinfo(rtfunc, 0, &off, &size);
        first = r == cudaSuccess;
        if (r != cudaSuccess && r != cudaErrorInvalidValue) {
            jw_int(w, "params_error", r);
            return;
        }
    } else {
        jw_str(w, "params_error", "no layout");
        return;
    }
    maps_t maps = {0};
    int maps_state = 0; /* read when a value first needs it */
    jw_open(w, "params", '[');
    for (size_t i = 0; first && i < MAX_PARAMS; i++) {
        if (i > 0) {
            int ok;
            if (rtinfo)
                ok = rtinfo(rtfunc, i, &off, &size) == cudaSuccess;
            else if (use_kernel)
                ok = p_cuKernelGetParamInfo((CUkernel)f, i, &off, &size) == CUDA_SUCCESS;
            else
                ok = p_cuFuncGetParamInfo(f, i, &off, &size) == CUDA_SUCCESS;
            if (!ok)
                break;
        }
        const unsigned char *bytes = NULL;
        if (args && args[i])
            bytes = args[i];
        else if (packed && off + size <= packed_size)
            bytes = packed + off;
        jw_open(w, NULL, '{');
        jw_uint(w, "offset", off);
        jw_uint(w, "size", size);
        if (bytes) {
            jw_hexle(w, "value", bytes, size);
            if (size > MAX_PARAM_BYTES)
                jw_bool(w, "value_cut", 1);
            if (size == 8)
                points_to(w, bytes, &maps, &maps_state);
        }
        jw_close(w);
    }
    jw_close(w);
    maps_free(&maps);
}

static void op_launch(jw_t *w, const char *name, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                      unsigned by, unsigned bz, size_t shmem, const void *stream, int pt,
                      CUfunction f, const void *rtfunc, void **args, void **extra)
{
    jw_str(w, "op", "launch");
    kernel_name(w, name);
    jw_open(w, "grid", '[');
    jw_uint(w, NULL, gx);
    jw_uint(w, NULL, gy);
    jw_uint(w, NULL, gz);
    jw_close(w);
    jw_open(w, "block", '[');
    jw_uint(w, NULL, bx);
    jw_uint(w, NULL, by);
    jw_uint(w, NULL, bz);
    jw_close(w);
    jw_uint(w, "shmem", shmem);
    stream_field(w, "stream", stream, pt);
    launch_params(w, f, rtfunc, args, extra);
}

static void op_sync(jw_t *w, const char *op, const char *what, const char *key, const void *h,
                    int pt)
{
    jw_str(w, "op", op);
    jw_str(w, "what", what);
    if (key && strcmp(key, "stream") == 0)
        stream_field(w, key, h, pt);
    else if (key)
        jw_ptr(w, key, (uintptr_t)h);
}

static void op_stream_create(jw_t *w, int ok, void *const *ps, unsigned flags, int priority)
{
    jw_str(w, "op", "stream_create");
    jw_ptr(w, "stream", ok && ps ? (uintptr_t)*ps : 0);
    jw_uint(w, "flags", flags);
    jw_int(w, "priority", priority);
}

static int dev_of(CUcontext ctx)
{
    uint32_t dev = 0;
    if (!ctx || cuptiGetDeviceId(ctx, &dev) != CUPTI_SUCCESS)
        return -1;
    return (int)dev;
}

/* ---- runtime calls -------------------------------------------------------- */

static void runtime_op(jw_t *w, CUpti_CallbackId id, const CUpti_CallbackData *cb, int ok, int dev)
{
    const void *a = cb->functionParams;
    int pt = 0; /* the per-thread default stream form */
    switch (id) {
    case RT(cudaMalloc_v3020): {
        const cudaMalloc_v3020_params *p = a;
        op_alloc(w, ok, ok ? (uintptr_t)*p->devPtr : 0, p->size, MEM_DEVICE, dev);
        break;
    }
    case RT(cudaMallocHost_v3020): {
        const cudaMallocHost_v3020_params *p = a;
        op_alloc(w, ok, ok ? (uintptr_t)*p->ptr : 0, p->size, MEM_PINNED, dev);
        break;
    }
    case RT(cudaHostAlloc_v3020): {
        const cudaHostAlloc_v3020_params *p = a;
        op_alloc(w, ok, ok ? (uintptr_t)*p->pHost : 0, p->size, MEM_PINNED, dev);
        jw_uint(w, "flags", p->flags);
        break;
    }
    case RT(cudaMallocManaged_v6000): {
        const cudaMallocManaged_v6000_params *p = a;
        op_alloc(w, ok, ok ? (uintptr_t)*p->devPtr : 0, p->size, MEM_MANAGED, dev);
        jw_uint(w, "flags", p->flags);
        break;
    }
    case RT(cudaMallocPitch_v3020): {
        const cudaMallocPitch_v3020_params *p = a;
        size_t pitch = ok ? *p->pitch : 0;
        op_alloc(w, ok, ok ? (uintptr_t)*p->devPtr : 0, pitch * p->height, MEM_PITCHED, dev);
        jw_uint(w, "pitch", pitch);
        jw_uint(w, "width", p->width);
        jw_uint(w, "height", p->height);
        break;
    }
    case RT(cudaMalloc3D_v3020): {
        const cudaMalloc3D_v3020_params *p = a;
        size_t pitch = ok ? p->pitchedDevPtr->pitch : 0;
        size_t bytes = pitch * p->extent.height * p->extent.depth;
        op_alloc(w, ok, ok ? (uintptr_t)p->pitchedDevPtr->ptr : 0, bytes, MEM_PITCHED, dev);
        jw_uint(w, "pitch", pitch);
        jw_uint(w, "width", p->extent.width);
        jw_uint(w, "height", p->extent.height);
        jw_uint(w, "depth", p->extent.depth);
        break;
    }
    case RT(cudaMallocAsync_ptsz_v11020): pt = 1; /* fall through */
    case RT(cudaMallocAsync_v11020): {
        const cudaMallocAsync_v11020_params *p = a;
        op_alloc(w, ok, ok ? (uintptr_t)*p->devPtr : 0, p->size, MEM_ASYNC, dev);
        stream_field(w, "stream", p->hStream, pt);
        break;
    }
    case RT(cudaMallocFromPoolAsync_ptsz_v11020): pt = 1; /* fall through */
    case RT(cudaMallocFromPoolAsync_v11020): {
        const cudaMallocFromPoolAsync_v11020_params *p = a;
        op_alloc(w, ok, ok ? (uintptr_t)*p->ptr : 0, p->size, MEM_ASYNC, dev);
        stream_field(w, "stream", p->stream, pt);
        break;
    }
    case RT(cudaFree_v3020):
        op_free(w, ok, (uintptr_t)((const cudaFree_v3020_params *)a)->devPtr, MEM_DEVICE);
        break;
    case RT(cudaFreeHost_v3020):
        op_free(w, ok, (uintptr_t)((const cudaFreeHost_v3020_params *)a)->ptr, MEM_PINNED);
        break;
    case RT(cudaFreeAsync_ptsz_v11020): pt = 1; /* fall through */
    case RT(cudaFreeAsync_v11020): {
        const cudaFreeAsync_v11020_params *p = a;
        op_free(w, ok, (uintptr_t)p->devPtr, MEM_ASYNC);
        stream_field(w, "stream", p->hStream, pt);
        break;
    }
    case RT(cudaHostRegister_v4000): {
        const cudaHostRegister_v4000_params *p = a;
        jw_str(w, "op", "register");
        jw_ptr(w, "ptr", (uintptr_t)p->ptr);
        jw_uint(w, "bytes", p->size);
        jw_uint(w, "flags", p->flags);
        if (ok)
            remember((uintptr_t)p->ptr, p->size, MEM_REGISTERED, dev);
        break;
    }
    case RT(cudaHostUnregister_v4000): {
        const cudaHostUnregister_v4000_params *p = a;
        jw_str(w, "op", "unregister");
        jw_ptr(w, "ptr", (uintptr_t)p->ptr);
        if (ok) { /* the range is plain host memory again: no stale entry */
            pthread_mutex_lock(&g_table_lock);
            table_free(&g_table, (uintptr_t)p->ptr);
            table_add(&g_table, (uintptr_t)p->ptr, 1, MEM_PAGEABLE, -1);
            table_free(&g_table, (uintptr_t)p->ptr);
            pthread_mutex_unlock(&g_table_lock);
        }
        break;
    }
    case RT(cudaMemset_ptds_v7000): pt = 1; /* fall through */
    case RT(cudaMemset_v3020): {
        const cudaMemset_v3020_params *p = a;
        op_memset(w, (uintptr_t)p->devPtr, (unsigned)p->value, 1, p->count, 0, NULL, pt);
        break;
    }
    case RT(cudaMemsetAsync_ptsz_v7000): pt = 1; /* fall through */
    case RT(cudaMemsetAsync_v3020): {
        const cudaMemsetAsync_v3020_params *p = a;
        op_memset(w, (uintptr_t)p->devPtr, (unsigned)p->value, 1, p->count, 1, p->stream, pt);
        break;
    }
    case RT(cudaMemset2D_ptds_v7000): pt = 1; /* fall through */
    case RT(cudaMemset2D_v3020): {
        const cudaMemset2D_v3020_params *p = a;
        op_memset(w, (uintptr_t)p->devPtr, (unsigned)p->value, 1, p->width * p->height, 0, NULL, pt);
        jw_uint(w, "pitch", p->pitch);
        jw_uint(w, "width", p->width);
        jw_uint(w, "height", p->height);
        break;
    }
    case RT(cudaMemset2DAsync_ptsz_v7000): pt = 1; /* fall through */
    case RT(cudaMemset2DAsync_v3020): {
        const cudaMemset2DAsync_v3020_params *p = a;
        op_memset(w, (uintptr_t)p->devPtr, (unsigned)p->value, 1, p->width * p->height, 1,
                  p->stream, pt);
        jw_uint(w, "pitch", p->pitch);
        jw_uint(w, "width", p->width);
        jw_uint(w, "height", p->height);
        break;
    }
    case RT(cudaMemcpy_ptds_v7000): pt = 1; /* fall through */
    case RT(cudaMemcpy_v3020): {
        const cudaMemcpy_v3020_params *p = a;
        op_copy(w, (uintptr_t)p->dst, 1, (uintptr_t)p->src, 1, p->count, p->kind, 0, NULL, pt);
        break;
    }
    case RT(cudaMemcpyAsync_ptsz_v7000): pt = 1; /* fall through */
    case RT(cudaMemcpyAsync_v3020): {
        const cudaMemcpyAsync_v3020_params *p = a;
        op_copy(w, (uintptr_t)p->dst, 1, (uintptr_t)p->src, 1, p->count, p->kind, 1, p->stream, pt);
        break;
    }
    case RT(cudaMemcpy2D_ptds_v7000): pt = 1; /* fall through */
    case RT(cudaMemcpy2D_v3020): {
        const cudaMemcpy2D_v3020_params *p = a;
        op_copy2d(w, (uintptr_t)p->dst, p->dpitch, (uintptr_t)p->src, p->spitch, p->width,
                  p->height, p->kind, 0, NULL, pt);
        break;
    }
    case RT(cudaMemcpy2DAsync_ptsz_v7000): pt = 1; /* fall through */
    case RT(cudaMemcpy2DAsync_v3020): {
        const cudaMemcpy2DAsync_v3020_params *p = a;
        op_copy2d(w, (uintptr_t)p->dst, p->dpitch, (uintptr_t)p->src, p->spitch, p->width,
                  p->height, p->kind, 1, p->stream, pt);
        break;
    }
    case RT(cudaMemcpyToSymbol_ptds_v7000): pt = 1; /* fall through */
    case RT(cudaMemcpyToSymbol_v3020): {
        const cudaMemcpyToSymbol_v3020_params *p = a;
        op_copy(w, 0, 0, (uintptr_t)p->src, 1, p->count, p->kind, 0, NULL, pt);
        jw_ptr(w, "symbol", (uintptr_t)p->symbol);
        jw_uint(w, "offset", p->offset);
        break;
    }
    case RT(cudaMemcpyToSymbolAsync_ptsz_v7000): pt = 1; /* fall through */
    case RT(cudaMemcpyToSymbolAsync_v3020): {
        const cudaMemcpyToSymbolAsync_v3020_params *p = a;
        op_copy(w, 0, 0, (uintptr_t)p->src, 1, p->count, p->kind, 1, p->stream, pt);
        jw_ptr(w, "symbol", (uintptr_t)p->symbol);
        jw_uint(w, "offset", p->offset);
        break;
    }
    case RT(cudaMemcpyFromSymbol_ptds_v7000): pt = 1; /* fall through */
    case RT(cudaMemcpyFromSymbol_v3020): {
        const cudaMemcpyFromSymbol_v3020_params *p = a;
        op_copy(w, (uintptr_t)p->dst, 1, 0, 0, p->count, p->kind, 0, NULL, pt);
        jw_ptr(w, "symbol", (uintptr_t)p->symbol);
        jw_uint(w, "offset", p->offset);
        break;
    }
    case RT(cudaMemcpyFromSymbolAsync_ptsz_v7000): pt = 1; /* fall through */
    case RT(cudaMemcpyFromSymbolAsync_v3020): {
        const cudaMemcpyFromSymbolAsync_v3020_params *p = a;
        op_copy(w, (uintptr_t)p->dst, 1, 0, 0, p->count, p->kind, 1, p->stream, pt);
        jw_ptr(w, "symbol", (uintptr_t)p->symbol);
        jw_uint(w, "offset", p->offset);
        break;
    }
    case RT(cudaMemcpyPeer_v4000): {
        const cudaMemcpyPeer_v4000_params *p = a;
        op_copy(w, (uintptr_t)p->dst, 1, (uintptr_t)p->src, 1, p->count, 3, 0, NULL, 0);
        jw_int(w, "dst_dev", p->dstDevice);
        jw_int(w, "src_dev", p->srcDevice);
        break;
    }
    case RT(cudaMemcpyPeerAsync_v4000): {
        const cudaMemcpyPeerAsync_v4000_params *p = a;
        op_copy(w, (uintptr_t)p->dst, 1, (uintptr_t)p->src, 1, p->count, 3, 1, p->stream, 0);
        jw_int(w, "dst_dev", p->dstDevice);
        jw_int(w, "src_dev", p->srcDevice);
        break;
    }
    case RT(cudaLaunchKernel_ptsz_v7000): pt = 1; /* fall through */
    case RT(cudaLaunchKernel_v7000): {
        const cudaLaunchKernel_v7000_params *p = a;
        op_launch(w, cb->symbolName, p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x,
                  p->blockDim.y, p->blockDim.z, p->sharedMem, p->stream, pt, t_func, p->func,
                  p->args, NULL);
        break;
    }
    case RT(cudaLaunchCooperativeKernel_ptsz_v9000): pt = 1; /* fall through */
    case RT(cudaLaunchCooperativeKernel_v9000): {
        const cudaLaunchCooperativeKernel_v9000_params *p = a;
        op_launch(w, cb->symbolName, p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x,
                  p->blockDim.y, p->blockDim.z, p->sharedMem, p->stream, pt, t_func, p->func,
                  p->args, NULL);
        break;
    }
    case RT(cudaLaunchKernelExC_ptsz_v11060): pt = 1; /* fall through */
    case RT(cudaLaunchKernelExC_v11060): {
        const cudaLaunchKernelExC_v11060_params *p = a;
        const cudaLaunchConfig_t *c = p->config;
        if (c)
            op_launch(w, cb->symbolName, c->gridDim.x, c->gridDim.y, c->gridDim.z, c->blockDim.x,
                      c->blockDim.y, c->blockDim.z, c->dynamicSmemBytes, c->stream, pt, t_func,
                      p->func, p->args, NULL);
        break;
    }
    case RT(cudaDeviceSynchronize_v3020):
    case RT(cudaThreadSynchronize_v3020):
        op_sync(w, "sync", "device", NULL, NULL, 0);
        break;
    case RT(cudaStreamSynchronize_ptsz_v7000): pt = 1; /* fall through */
    case RT(cudaStreamSynchronize_v3020):
        op_sync(w, "sync", "stream", "stream", ((const cudaStreamSynchronize_v3020_params *)a)->stream, pt);
        break;
    case RT(cudaEventSynchronize_v3020):
        op_sync(w, "sync", "event", "event", ((const cudaEventSynchronize_v3020_params *)a)->event, 0);
        break;
    case RT(cudaStreamQuery_ptsz_v7000): pt = 1; /* fall through */
    case RT(cudaStreamQuery_v3020):
        op_sync(w, "query", "stream", "stream", ((const cudaStreamQuery_v3020_params *)a)->stream, pt);
        break;
    case RT(cudaEventQuery_v3020):
        op_sync(w, "query", "event", "event", ((const cudaEventQuery_v3020_params *)a)->event, 0);
        break;
    case RT(cudaEventRecord_ptsz_v7000): pt = 1; /* fall through */
    case RT(cudaEventRecord_v3020): {
        const cudaEventRecord_v3020_params *p = a;
        jw_str(w, "op", "event_record");
        jw_ptr(w, "event", (uintptr_t)p->event);
        stream_field(w, "stream", p->stream, pt);
        break;
    }
    case RT(cudaEventRecordWithFlags_ptsz_v11010): pt = 1; /* fall through */
    case RT(cudaEventRecordWithFlags_v11010): {
        const cudaEventRecordWithFlags_v11010_params *p = a;
        jw_str(w, "op", "event_record");
        jw_ptr(w, "event", (uintptr_t)p->event);
        stream_field(w, "stream", p->stream, pt);
        break;
    }
    case RT(cudaStreamWaitEvent_ptsz_v7000): pt = 1; /* fall through */
    case RT(cudaStreamWaitEvent_v3020): {
        const cudaStreamWaitEvent_v3020_params *p = a;
        jw_str(w, "op", "stream_wait");
        stream_field(w, "stream", p->stream, pt);
        jw_ptr(w, "event", (uintptr_t)p->event);
        break;
    }
    case RT(cudaStreamCreate_v3020):
        op_stream_create(w, ok, (void *const *)((const cudaStreamCreate_v3020_params *)a)->pStream, 0, 0);
        break;
    case RT(cudaStreamCreateWithFlags_v5000): {
        const cudaStreamCreateWithFlags_v5000_params *p = a;
        op_stream_create(w, ok, (void *const *)p->pStream, p->flags, 0);
        break;
    }
    case RT(cudaStreamCreateWithPriority_v5050): {
        const cudaStreamCreateWithPriority_v5050_params *p = a;
        op_stream_create(w, ok, (void *const *)p->pStream, p->flags, p->priority);
        break;
    }
    case RT(cudaStreamDestroy_v3020):
    case RT(cudaStreamDestroy_v5050):
        jw_str(w, "op", "stream_destroy");
        jw_ptr(w, "stream", (uintptr_t)((const cudaStreamDestroy_v5050_params *)a)->stream);
        break;
    case RT(cudaDeviceEnablePeerAccess_v4000): {
        const cudaDeviceEnablePeerAccess_v4000_params *p = a;
        jw_str(w, "op", "peer");
        jw_int(w, "peer", p->peerDevice);
        break;
    }
    default:
        break;
    }
}

/* ---- driver calls --------------------------------------------------------- */

static void memset_drv(jw_t *w, CUdeviceptr d, unsigned v, int elem, size_t n, int async,
                       CUstream s, int pt)
{
    op_memset(w, (uintptr_t)d, v, elem, n, async, s, pt);
}

static void memset2d_drv(jw_t *w, CUdeviceptr d, size_t pitch, unsigned v, int elem, size_t width,
                         size_t height, int async, CUstream s, int pt)
{
    op_memset(w, (uintptr_t)d, v, elem, width * height, async, s, pt);
    jw_uint(w, "pitch", pitch);
    jw_uint(w, "width", width);
    jw_uint(w, "height", height);
}

static void driver_op(jw_t *w, CUpti_CallbackId id, const CUpti_CallbackData *cb, int ok, int dev)
{
    const void *a = cb->functionParams;
    int pt = 0;
    switch (id) {
    case DRV(cuMemAlloc_v2): {
        const cuMemAlloc_v2_params *p = a;
        op_alloc(w, ok, ok ? (uintptr_t)*p->dptr : 0, p->bytesize, MEM_DEVICE, dev);
        break;
    }
    case DRV(cuMemAllocHost_v2): {
        const cuMemAllocHost_v2_params *p = a;
        op_alloc(w, ok, ok ? (uintptr_t)*p->pp : 0, p->bytesize, MEM_PINNED, dev);
        break;
    }
    case DRV(cuMemHostAlloc): {
        const cuMemHostAlloc_params *p = a;
        op_alloc(w, ok, ok ? (uintptr_t)*p->pp : 0, p->bytesize, MEM_PINNED, dev);
        jw_uint(w, "flags", p->Flags);
        break;
    }
    case DRV(cuMemAllocManaged): {
        const cuMemAllocManaged_params *p = a;
        op_alloc(w, ok, ok ? (uintptr_t)*p->dptr : 0, p->bytesize, MEM_MANAGED, dev);
        jw_uint(w, "flags", p->flags);
        break;
    }
    case DRV(cuMemAllocPitch_v2): {
        const cuMemAllocPitch_v2_params *p = a;
        size_t pitch = ok ? *p->pPitch : 0;
        op_alloc(w, ok, ok ? (uintptr_t)*p->dptr : 0, pitch * p->Height, MEM_PITCHED, dev);
        jw_uint(w, "pitch", pitch);
        jw_uint(w, "width", p->WidthInBytes);
        jw_uint(w, "height", p->Height);
        break;
    }
    case DRV(cuMemAllocAsync_ptsz): pt = 1; /* fall through */
    case DRV(cuMemAllocAsync): {
        const cuMemAllocAsync_params *p = a;
        op_alloc(w, ok, ok ? (uintptr_t)*p->dptr : 0, p->bytesize, MEM_ASYNC, dev);
        stream_field(w, "stream", p->hStream, pt);
        break;
    }
    case DRV(cuMemAllocFromPoolAsync_ptsz): pt = 1; /* fall through */
    case DRV(cuMemAllocFromPoolAsync): {
        const cuMemAllocFromPoolAsync_params *p = a;
        op_alloc(w, ok, ok ? (uintptr_t)*p->dptr : 0, p->bytesize, MEM_ASYNC, dev);
        stream_field(w, "stream", p->hStream, pt);
        break;
    }
    case DRV(cuMemFree_v2):
        op_free(w, ok, (uintptr_t)((const cuMemFree_v2_params *)a)->dptr, MEM_DEVICE);
        break;
    case DRV(cuMemFreeHost):
        op_free(w, ok, (uintptr_t)((const cuMemFreeHost_params *)a)->p, MEM_PINNED);
        break;
    case DRV(cuMemFreeAsync_ptsz): pt = 1; /* fall through */
    case DRV(cuMemFreeAsync): {
        const cuMemFreeAsync_params *p = a;
        op_free(w, ok, (uintptr_t)p->dptr, MEM_ASYNC);
        stream_field(w, "stream", p->hStream, pt);
        break;
    }
    case DRV(cuMemHostRegister_v2): {
        const cuMemHostRegister_v2_params *p = a;
        jw_str(w, "op", "register");
        jw_ptr(w, "ptr", (uintptr_t)p->p);
        jw_uint(w, "bytes", p->bytesize);
        jw_uint(w, "flags", p->Flags);
        if (ok)
            remember((uintptr_t)p->p, p->bytesize, MEM_REGISTERED, dev);
        break;
    }
    case DRV(cuMemHostUnregister): {
        const cuMemHostUnregister_params *p = a;
        jw_str(w, "op", "unregister");
        jw_ptr(w, "ptr", (uintptr_t)p->p);
        if (ok) {
            pthread_mutex_lock(&g_table_lock);
            table_free(&g_table, (uintptr_t)p->p);
            table_add(&g_table, (uintptr_t)p->p, 1, MEM_PAGEABLE, -1);
            table_free(&g_table, (uintptr_t)p->p);
            pthread_mutex_unlock(&g_table_lock);
        }
        break;
    }
    /* memsets: D8/D16/D32, plain, 2D, async, per-thread forms (same layouts) */
    case DRV(cuMemsetD8_v2_ptds): pt = 1; /* fall through */
    case DRV(cuMemsetD8_v2): {
        const cuMemsetD8_v2_params *p = a;
        memset_drv(w, p->dstDevice, p->uc, 1, p->N, 0, NULL, pt);
        break;
    }
    case DRV(cuMemsetD16_v2_ptds): pt = 1; /* fall through */
    case DRV(cuMemsetD16_v2): {
        const cuMemsetD16_v2_params *p = a;
        memset_drv(w, p->dstDevice, p->us, 2, p->N, 0, NULL, pt);
        break;
    }
    case DRV(cuMemsetD32_v2_ptds): pt = 1; /* fall through */
    case DRV(cuMemsetD32_v2): {
        const cuMemsetD32_v2_params *p = a;
        memset_drv(w, p->dstDevice, p->ui, 4, p->N, 0, NULL, pt);
        break;
    }
    case DRV(cuMemsetD8Async_ptsz): pt = 1; /* fall through */
    case DRV(cuMemsetD8Async): {
        const cuMemsetD8Async_params *p = a;
        memset_drv(w, p->dstDevice, p->uc, 1, p->N, 1, p->hStream, pt);
        break;
    }
    case DRV(cuMemsetD16Async_ptsz): pt = 1; /* fall through */
    case DRV(cuMemsetD16Async): {
        const cuMemsetD16Async_params *p = a;
        memset_drv(w, p->dstDevice, p->us, 2, p->N, 1, p->hStream, pt);
        break;
    }
    case DRV(cuMemsetD32Async_ptsz): pt = 1; /* fall through */
    case DRV(cuMemsetD32Async): {
        const cuMemsetD32Async_params *p = a;
        memset_drv(w, p->dstDevice, p->ui, 4, p->N, 1, p->hStream, pt);
        break;
    }
    case DRV(cuMemsetD2D8_v2_ptds): pt = 1; /* fall through */
    case DRV(cuMemsetD2D8_v2): {
        const cuMemsetD2D8_v2_params *p = a;
        memset2d_drv(w, p->dstDevice, p->dstPitch, p->uc, 1, p->Width, p->Height, 0, NULL, pt);
        break;
    }
    case DRV(cuMemsetD2D16_v2_ptds): pt = 1; /* fall through */
    case DRV(cuMemsetD2D16_v2): {
        const cuMemsetD2D16_v2_params *p = a;
        memset2d_drv(w, p->dstDevice, p->dstPitch, p->us, 2, p->Width, p->Height, 0, NULL, pt);
        break;
    }
    case DRV(cuMemsetD2D32_v2_ptds): pt = 1; /* fall through */
    case DRV(cuMemsetD2D32_v2): {
        const cuMemsetD2D32_v2_params *p = a;
        memset2d_drv(w, p->dstDevice, p->dstPitch, p->ui, 4, p->Width, p->Height, 0, NULL, pt);
        break;
    }
    case DRV(cuMemsetD2D8Async_ptsz): pt = 1; /* fall through */
    case DRV(cuMemsetD2D8Async): {
        const cuMemsetD2D8Async_params *p = a;
        memset2d_drv(w, p->dstDevice, p->dstPitch, p->uc, 1, p->Width, p->Height, 1, p->hStream, pt);
        break;
    }
    case DRV(cuMemsetD2D16Async_ptsz): pt = 1; /* fall through */
    case DRV(cuMemsetD2D16Async): {
        const cuMemsetD2D16Async_params *p = a;
        memset2d_drv(w, p->dstDevice, p->dstPitch, p->us, 2, p->Width, p->Height, 1, p->hStream, pt);
        break;
    }
    case DRV(cuMemsetD2D32Async_ptsz): pt = 1; /* fall through */
    case DRV(cuMemsetD2D32Async): {
        const cuMemsetD2D32Async_params *p = a;
        memset2d_drv(w, p->dstDevice, p->dstPitch, p->ui, 4, p->Width, p->Height, 1, p->hStream, pt);
        break;
    }
    /* copies */
    case DRV(cuMemcpyHtoD_v2_ptds): pt = 1; /* fall through */
    case DRV(cuMemcpyHtoD_v2): {
        const cuMemcpyHtoD_v2_params *p = a;
        op_copy(w, (uintptr_t)p->dstDevice, 1, (uintptr_t)p->srcHost, 1, p->ByteCount, 1, 0, NULL, pt);
        break;
    }
    case DRV(cuMemcpyDtoH_v2_ptds): pt = 1; /* fall through */
    case DRV(cuMemcpyDtoH_v2): {
        const cuMemcpyDtoH_v2_params *p = a;
        op_copy(w, (uintptr_t)p->dstHost, 1, (uintptr_t)p->srcDevice, 1, p->ByteCount, 2, 0, NULL, pt);
        break;
    }
    case DRV(cuMemcpyDtoD_v2_ptds): pt = 1; /* fall through */
    case DRV(cuMemcpyDtoD_v2): {
        const cuMemcpyDtoD_v2_params *p = a;
        op_copy(w, (uintptr_t)p->dstDevice, 1, (uintptr_t)p->srcDevice, 1, p->ByteCount, 3, 0, NULL, pt);
        break;
    }
    case DRV(cuMemcpy_ptds): pt = 1; /* fall through */
    case DRV(cuMemcpy): {
        const cuMemcpy_params *p = a;
        op_copy(w, (uintptr_t)p->dst, 1, (uintptr_t)p->src, 1, p->ByteCount, 4, 0, NULL, pt);
        break;
    }
    case DRV(cuMemcpyHtoDAsync_v2_ptsz): pt = 1; /* fall through */
    case DRV(cuMemcpyHtoDAsync_v2): {
        const cuMemcpyHtoDAsync_v2_params *p = a;
        op_copy(w, (uintptr_t)p->dstDevice, 1, (uintptr_t)p->srcHost, 1, p->ByteCount, 1, 1, p->hStream, pt);
        break;
    }
    case DRV(cuMemcpyDtoHAsync_v2_ptsz): pt = 1; /* fall through */
    case DRV(cuMemcpyDtoHAsync_v2): {
        const cuMemcpyDtoHAsync_v2_params *p = a;
        op_copy(w, (uintptr_t)p->dstHost, 1, (uintptr_t)p->srcDevice, 1, p->ByteCount, 2, 1, p->hStream, pt);
        break;
    }
    case DRV(cuMemcpyDtoDAsync_v2_ptsz): pt = 1; /* fall through */
    case DRV(cuMemcpyDtoDAsync_v2): {
        const cuMemcpyDtoDAsync_v2_params *p = a;
        op_copy(w, (uintptr_t)p->dstDevice, 1, (uintptr_t)p->srcDevice, 1, p->ByteCount, 3, 1, p->hStream, pt);
        break;
    }
    case DRV(cuMemcpyAsync_ptsz): pt = 1; /* fall through */
    case DRV(cuMemcpyAsync): {
        const cuMemcpyAsync_params *p = a;
        op_copy(w, (uintptr_t)p->dst, 1, (uintptr_t)p->src, 1, p->ByteCount, 4, 1, p->hStream, pt);
        break;
    }
    case DRV(cuMemcpyPeer_ptds): pt = 1; /* fall through */
    case DRV(cuMemcpyPeer): {
        const cuMemcpyPeer_params *p = a;
        op_copy(w, (uintptr_t)p->dstDevice, 1, (uintptr_t)p->srcDevice, 1, p->ByteCount, 3, 0, NULL, pt);
        jw_int(w, "dst_dev", dev_of(p->dstContext));
        jw_int(w, "src_dev", dev_of(p->srcContext));
        break;
    }
    case DRV(cuMemcpyPeerAsync_ptsz): pt = 1; /* fall through */
    case DRV(cuMemcpyPeerAsync): {
        const cuMemcpyPeerAsync_params *p = a;
        op_copy(w, (uintptr_t)p->dstDevice, 1, (uintptr_t)p->srcDevice, 1, p->ByteCount, 3, 1, p->hStream, pt);
        jw_int(w, "dst_dev", dev_of(p->dstContext));
        jw_int(w, "src_dev", dev_of(p->srcContext));
        break;
    }
    case DRV(cuMemcpy2D_v2_ptds):
    case DRV(cuMemcpy2DUnaligned_v2_ptds): pt = 1; /* fall through */
    case DRV(cuMemcpy2D_v2):
    case DRV(cuMemcpy2DUnaligned_v2):
        op_copy2d_drv(w, ((const cuMemcpy2D_v2_params *)a)->pCopy, 0, NULL, pt);
        break;
    case DRV(cuMemcpy2DAsync_v2_ptsz): pt = 1; /* fall through */
    case DRV(cuMemcpy2DAsync_v2): {
        const cuMemcpy2DAsync_v2_params *p = a;
        op_copy2d_drv(w, p->pCopy, 1, p->hStream, pt);
        break;
    }
    /* launches */
    case DRV(cuLaunchKernel_ptsz): pt = 1; /* fall through */
    case DRV(cuLaunchKernel): {
        const cuLaunchKernel_params *p = a;
        op_launch(w, cb->symbolName, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX,
                  p->blockDimY, p->blockDimZ, p->sharedMemBytes, p->hStream, pt, p->f, NULL,
                  p->kernelParams, p->extra);
        break;
    }
    case DRV(cuLaunchCooperativeKernel_ptsz): pt = 1; /* fall through */
    case DRV(cuLaunchCooperativeKernel): {
        const cuLaunchCooperativeKernel_params *p = a;
        op_launch(w, cb->symbolName, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX,
                  p->blockDimY, p->blockDimZ, p->sharedMemBytes, p->hStream, pt, p->f, NULL,
                  p->kernelParams, NULL);
        break;
    }
    case DRV(cuLaunchKernelEx_ptsz): pt = 1; /* fall through */
    case DRV(cuLaunchKernelEx): {
        const cuLaunchKernelEx_params *p = a;
        const CUlaunchConfig *c = p->config;
        if (c)
            op_launch(w, cb->symbolName, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX,
                      c->blockDimY, c->blockDimZ, c->sharedMemBytes, c->hStream, pt, p->f, NULL,
                      p->kernelParams, p->extra);
        break;
    }
    /* synchronisation and ordering */
    case DRV(cuCtxSynchronize):
    case DRV(cuCtxSynchronize_v2):
        op_sync(w, "sync", "ctx", NULL, NULL, 0);
        break;
    case DRV(cuStreamSynchronize_ptsz): pt = 1; /* fall through */
    case DRV(cuStreamSynchronize):
        op_sync(w, "sync", "stream", "stream", ((const cuStreamSynchronize_params *)a)->hStream, pt);
        break;
    case DRV(cuEventSynchronize):
        op_sync(w, "sync", "event", "event", ((const cuEventSynchronize_params *)a)->hEvent, 0);
        break;
    case DRV(cuStreamQuery_ptsz): pt = 1; /* fall through */
    case DRV(cuStreamQuery):
        op_sync(w, "query", "stream", "stream", ((const cuStreamQuery_params *)a)->hStream, pt);
        break;
    case DRV(cuEventQuery):
        op_sync(w, "query", "event", "event", ((const cuEventQuery_params *)a)->hEvent, 0);
        break;
    case DRV(cuEventRecord_ptsz): pt = 1; /* fall through */
    case DRV(cuEventRecord): {
        const cuEventRecord_params *p = a;
        jw_str(w, "op", "event_record");
        jw_ptr(w, "event", (uintptr_t)p->hEvent);
        stream_field(w, "stream", p->hStream, pt);
        break;
    }
    case DRV(cuEventRecordWithFlags_ptsz): pt = 1; /* fall through */
    case DRV(cuEventRecordWithFlags): {
        const cuEventRecordWithFlags_params *p = a;
        jw_str(w, "op", "event_record");
        jw_ptr(w, "event", (uintptr_t)p->hEvent);
        stream_field(w, "stream", p->hStream, pt);
        break;
    }
    case DRV(cuStreamWaitEvent_ptsz): pt = 1; /* fall through */
    case DRV(cuStreamWaitEvent): {
        const cuStreamWaitEvent_params *p = a;
        jw_str(w, "op", "stream_wait");
        stream_field(w, "stream", p->hStream, pt);
        jw_ptr(w, "event", (uintptr_t)p->hEvent);
        break;
    }
    case DRV(cuStreamCreate): {
        const cuStreamCreate_params *p = a;
        op_stream_create(w, ok, (void *const *)p->phStream, p->Flags, 0);
        break;
    }
    case DRV(cuStreamCreateWithPriority): {
        const cuStreamCreateWithPriority_params *p = a;
        op_stream_create(w, ok, (void *const *)p->phStream, p->flags, p->priority);
        break;
    }
    case DRV(cuStreamDestroy_v2):
        jw_str(w, "op", "stream_destroy");
        jw_ptr(w, "stream", (uintptr_t)((const cuStreamDestroy_v2_params *)a)->hStream);
        break;
    /* contexts */
    case DRV(cuCtxEnablePeerAccess): {
        const cuCtxEnablePeerAccess_params *p = a;
        jw_str(w, "op", "peer");
        jw_int(w, "peer", dev_of(p->peerContext));
        jw_ptr(w, "peer_ctx", (uintptr_t)p->peerContext);
        break;
    }
    case DRV(cuCtxSetCurrent):
    case DRV(cuCtxPushCurrent_v2): {
        CUcontext c = ((const cuCtxSetCurrent_params *)a)->ctx; /* same layout */
        jw_str(w, "op", id == DRV(cuCtxSetCurrent) ? "ctx_set" : "ctx_push");
        jw_ptr(w, "to", (uintptr_t)c);
        jw_int(w, "to_dev", dev_of(c));
        break;
    }
    case DRV(cuCtxPopCurrent_v2): {
        const cuCtxPopCurrent_v2_params *p = a;
        jw_str(w, "op", "ctx_pop");
        jw_ptr(w, "popped", ok && p->pctx ? (uintptr_t)*p->pctx : 0);
        break;
    }
    case DRV(cuCtxCreate_v2): {
        const cuCtxCreate_v2_params *p = a;
        jw_str(w, "op", "ctx_create");
        jw_ptr(w, "created", ok && p->pctx ? (uintptr_t)*p->pctx : 0);
        jw_int(w, "on_dev", p->dev);
        break;
    }
    case DRV(cuCtxCreate_v3): {
        const cuCtxCreate_v3_params *p = a;
        jw_str(w, "op", "ctx_create");
        jw_ptr(w, "created", ok && p->pctx ? (uintptr_t)*p->pctx : 0);
        jw_int(w, "on_dev", p->dev);
        break;
    }
    case DRV(cuCtxCreate_v4): {
        const cuCtxCreate_v4_params *p = a;
        jw_str(w, "op", "ctx_create");
        jw_ptr(w, "created", ok && p->pctx ? (uintptr_t)*p->pctx : 0);
        jw_int(w, "on_dev", p->dev);
        break;
    }
    case DRV(cuDevicePrimaryCtxRetain): {
        const cuDevicePrimaryCtxRetain_params *p = a;
        jw_str(w, "op", "ctx_retain");
        jw_ptr(w, "created", ok && p->pctx ? (uintptr_t)*p->pctx : 0);
        jw_int(w, "on_dev", p->dev);
        break;
    }
    default:
        break;
    }
}

/* ---- the callback --------------------------------------------------------- */

static const char *rt_error_name(int code)
{
    for (size_t i = 0; i < sizeof rt_errors / sizeof *rt_errors; i++)
        if (rt_errors[i].code == code)
            return rt_errors[i].name;
    return NULL;
}

static int is_driver_launch(CUpti_CallbackId id)
{
    return id == DRV(cuLaunchKernel) || id == DRV(cuLaunchKernel_ptsz) ||
           id == DRV(cuLaunchKernelEx) || id == DRV(cuLaunchKernelEx_ptsz) ||
           id == DRV(cuLaunchCooperativeKernel) || id == DRV(cuLaunchCooperativeKernel_ptsz);
}

/* Counts a call the cap left out; returns 1 if it is one. */
static int over_cap(CUpti_CallbackDomain dom, CUpti_CallbackId id, const char *name)
{
    int over = 0;
    pthread_mutex_lock(&g_lock);
    if (g_records >= g_max) {
        over = 1;
        if (dom == CUPTI_CB_DOMAIN_RUNTIME_API && id < RT(SIZE))
            g_rt_dropped[id]++, g_rt_names[id] = name;
        else if (dom == CUPTI_CB_DOMAIN_DRIVER_API && id < DRV(SIZE))
            g_drv_dropped[id]++, g_drv_names[id] = name;
    }
    pthread_mutex_unlock(&g_lock);
    return over;
}

static void record_call(CUpti_CallbackDomain dom, CUpti_CallbackId id, const CUpti_CallbackData *cb,
                        int nested)
{
    char buf[RECORD_BYTES];
    jw_t w;
    int rt = dom == CUPTI_CB_DOMAIN_RUNTIME_API;
    int result = cb->functionReturnValue ? (rt ? (int)*(cudaError_t *)cb->functionReturnValue
                                              : (int)*(CUresult *)cb->functionReturnValue)
                                         : 0;
    /* Over the cap the record is still made, unwritten: the allocation
     * table must stay right for the records that are written. */
    int over = over_cap(dom, id, cb->functionName);
    jw_init(&w, buf + PREFIX, sizeof buf - PREFIX);
    jw_str(&w, "ev", "call");
    jw_int(&w, "tid", tid());
    jw_str(&w, "api", cb->functionName);
    jw_str(&w, "layer", rt ? "rt" : "drv");
    int dev = dev_of(cb->context);
    int set_device = rt && id == RT(cudaSetDevice_v3020);
    if (set_device)
        dev = ((const cudaSetDevice_v3020_params *)cb->functionParams)->device;
    if (dev >= 0)
        jw_int(&w, "dev", dev);
    jw_ptr(&w, "ctx", (uintptr_t)cb->context);
    jw_int(&w, "result", result);
    if (result != 0) {
        const char *name = NULL;
        if (rt)
            name = rt_error_name(result);
        else if (p_cuGetErrorName && p_cuGetErrorName((CUresult)result, &name) != CUDA_SUCCESS)
            name = NULL;
        jw_str(&w, "error", name ? name : "unknown");
    }
    if (nested)
        jw_int(&w, "nested", nested);
    if (t_init_pending && !rt)
        jw_bool(&w, "init", 1);
    t_call_ok = result == 0;
    if (set_device)
        jw_str(&w, "op", "set_device");
    else if (rt)
        runtime_op(&w, id, cb, result == 0, dev);
    else
        driver_op(&w, id, cb, result == 0, dev);
    /* "Not ready" answers a query; it is no failure. */
    if (!over)
        emit(buf, &w, 1, result != 0 && result != (rt ? (int)cudaErrorNotReady : (int)CUDA_ERROR_NOT_READY));
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain dom, CUpti_CallbackId id,
                                 const void *data)
{
    (void)userdata;
    const CUpti_CallbackData *cb = data;
    if (dom != CUPTI_CB_DOMAIN_RUNTIME_API && dom != CUPTI_CB_DOMAIN_DRIVER_API)
        return;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        int outer = t_depth == 0;
        t_depth++;
        *cb->correlationData = outer ? MARK_OUTER : MARK_INNER;
        if (outer) {
            t_func = NULL;
            if (dom == CUPTI_CB_DOMAIN_RUNTIME_API)
                t_init_pending = 0; /* the runtime call around cuInit is over */
        }
        else if (dom == CUPTI_CB_DOMAIN_DRIVER_API && is_driver_launch(id) && cb->functionParams) {
            /* The runtime launching through the driver: its CUfunction tells
             * the parameters' layout. cuLaunchKernel, its _ptsz form and the
             * cooperative one share the first field; cuLaunchKernelEx has it second. */
            if (id == DRV(cuLaunchKernelEx) || id == DRV(cuLaunchKernelEx_ptsz))
                t_func = ((const cuLaunchKernelEx_params *)cb->functionParams)->f;
            else
                t_func = ((const cuLaunchKernel_params *)cb->functionParams)->f;
        }
        return;
    }
    uint64_t mark = *cb->correlationData;
    if (t_depth == 0 || (mark != MARK_OUTER && mark != MARK_INNER)) {
        /* Its entry came before the subscription. */
        if (dom == CUPTI_CB_DOMAIN_RUNTIME_API)
            t_init_pending = 0;
        return;
    }
    if (atomic_load(&g_on) && (mark == MARK_OUTER || g_nested))
        record_call(dom, id, cb, mark == MARK_OUTER ? 0 : t_depth);
    t_depth--;
}

/* ---- entry point ---------------------------------------------------------- */

/* Whether cuInit, which is calling us, was called by a CUDA runtime (the
 * program's own static one, or a libcudart): the caller of the first frame
 * past the driver's. A program calling the driver itself (PyCUDA, Numba)
 * shows its own module there, unless it is a C program using the driver API
 * directly, which this takes for a static runtime. */
static int runtime_is_initialising(void)
{
    void *frames[48];
    int n = backtrace(frames, 48);
    Dl_info self, info;
    int in_driver = 0;
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = 0;
    if (!dladdr((void *)runtime_is_initialising, &self))
        return 0;
    for (int i = 0; i < n; i++) {
        if (!dladdr(frames[i], &info) || !info.dli_fname || info.dli_fbase == self.dli_fbase)
            continue;
        char name[4096];
        snprintf(name, sizeof name, "%s", info.dli_fname);
        const char *base = basename(name);
        if (strncmp(base, "libcuda.so", 10) == 0) {
            in_driver = 1;
            continue;
        }
        if (!in_driver)
            continue;
        /* The main program's name is as it was started, or empty. */
        char exe_copy[4096];
        snprintf(exe_copy, sizeof exe_copy, "%s", exe);
        return strncmp(base, "libcudart", 9) == 0 || !info.dli_fname[0] ||
               strcmp(base, basename(exe_copy)) == 0;
    }
    return 0;
}

/** Called by the CUDA driver (CUDA_INJECTION64_PATH) during cuInit. Returns 1
 *  always: a trace that cannot start must not stop the program. */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
    static int done;
    const char *dir = getenv("CLINIC_TRACE_DIR");
    if (done || !dir || !*dir)
        return 1;
    done = 1;
    snprintf(g_dir, sizeof g_dir, "%s", dir);
    const char *max = getenv("CLINIC_TRACE_MAX");
    if (max && *max)
        g_max = strtoull(max, NULL, 10);
    const char *nested = getenv("CLINIC_TRACE_NESTED");
    g_nested = nested && *nested && strcmp(nested, "0") != 0;
    if (!open_log())
        return 1;
    lookup_driver();
    CUptiResult r = cuptiSubscribe(&g_sub, on_callback, NULL);
    if (r == CUPTI_SUCCESS)
        r = cuptiEnableDomain(1, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API);
    if (r == CUPTI_SUCCESS)
        r = cuptiEnableDomain(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API);
    if (r != CUPTI_SUCCESS) {
        const char *why = NULL;
        char text[256];
        if (cuptiGetResultString(r, &why) != CUPTI_SUCCESS || !why)
            why = "unknown CUPTI error";
        snprintf(text, sizeof text, "unavailable: %s (%d)", why, (int)r);
        write_start(text);
        close(g_fd);
        g_fd = -1;
        return 1;
    }
    t_init_pending = runtime_is_initialising();
    write_start("ok");
    atomic_store(&g_on, 1);
    pthread_atfork(NULL, NULL, after_fork);
    atexit(write_end);
    return 1;
}
