/** \file test_trace_core.c
 *  \brief Host-only unit test of the trace library's JSON writer, allocation
 *         table and glibc heap-chunk look-up (trace_core.c). Needs no GPU.
 *
 *  Each JSON record is also checked by Python's json module when a Python is
 *  given as the first argument, so that "valid JSON" is not judged by the
 *  code under test.
 */
#define _GNU_SOURCE
#include "trace_core.h"

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Taking malloc's address here makes, in the build that is not
 * position-independent (trace.unit.nopie), the program's own PLT entry the
 * address the dynamic linker gives for "malloc", as in a Python interpreter
 * built that way: the look-up must still recognise glibc's malloc. */
void *(*volatile malloc_address)(size_t);

static int failures;
static const char *python;

#define EXPECT(cond, ...)                                         \
    do {                                                          \
        if (!(cond)) {                                            \
            failures++;                                           \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            printf(__VA_ARGS__);                                  \
            printf("\n");                                         \
        }                                                         \
    } while (0)

/* Python's json.loads must accept the line and find key == want (a JSON text). */
static void expect_json(const char *line, const char *key, const char *want)
{
    if (!python)
        return;
    char path[] = "/tmp/trace_core_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs(line, f);
    fclose(f);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "%s -c \"import json,sys; r=json.loads(open('%s').read()); "
             "sys.exit(0 if r.get('%s') == json.loads(sys.argv[1]) else 1)\" '%s'",
             python, path, key, want);
    int rc = system(cmd);
    EXPECT(rc == 0, "json.loads of %s: %s is not %s", line, key, want);
    remove(path);
}

static void test_writer(void)
{
    char buf[4096];
    jw_t w;
    jw_init(&w, buf, sizeof buf);
    jw_str(&w, "api", "quote\" back\\ tab\t nl\n bell\a \xc3\xa9 bad\xff");
    jw_int(&w, "neg", -5);
    jw_ptr(&w, "ptr", (uintptr_t)0x7f00dead0000ULL);
    jw_bool(&w, "async", 1);
    unsigned char le[4] = {0x78, 0x56, 0x34, 0x12};
    jw_open(&w, "params", '[');
    jw_open(&w, NULL, '{');
    jw_int(&w, "offset", 0);
    jw_hexle(&w, "value", le, 4);
    jw_close(&w);
    jw_close(&w);
    size_t n = jw_finish(&w);
    buf[n] = 0;
    EXPECT(buf[n - 1] == '\n' && strchr(buf, '\n') == buf + n - 1, "one line: %s", buf);
    EXPECT(strstr(buf, "\"value\":\"0x12345678\"") != NULL, "little-endian value: %s", buf);
    EXPECT(strstr(buf, "\"ptr\":\"0x7f00dead0000\"") != NULL, "pointer: %s", buf);
    EXPECT(strstr(buf, "\\u0009") && strstr(buf, "\\u000a") && strstr(buf, "\\\""), "escapes: %s", buf);
    expect_json(buf, "api", "\"quote\\\" back\\\\ tab\\t nl\\n bell\\u0007 \\u00e9 bad\\ufffd\"");
    expect_json(buf, "params", "[{\"offset\": 0, \"value\": \"0x12345678\"}]");
    expect_json(buf, "neg", "-5");

    /* A record too long for its buffer still ends as one valid JSON line. */
    char small[200];
    jw_init(&w, small, sizeof small);
    jw_str(&w, "ev", "call");
    jw_open(&w, "params", '[');
    for (int i = 0; i < 50; i++) {
        jw_open(&w, NULL, '{');
        jw_int(&w, "offset", i * 8);
        jw_close(&w);
    }
    jw_close(&w);
    jw_int(&w, "after", 1);
    n = jw_finish(&w);
    small[n] = 0;
    EXPECT(n < sizeof small && small[n - 1] == '\n', "bounded: %zu", n);
    EXPECT(strstr(small, "\"truncated\":true") != NULL, "truncation marked: %s", small);
    expect_json(small, "truncated", "true");
    expect_json(small, "ev", "\"call\"");
}

static void test_table(void)
{
    alloc_table_t t = {0};
    table_add(&t, 0x1000, 0x100, MEM_DEVICE, 0);
    table_add(&t, 0x2000, 0x40, MEM_PINNED, 0);
    const alloc_t *a = table_find(&t, 0x10ff);
    EXPECT(a && a->base == 0x1000 && !a->freed, "interior pointer of a live allocation");
    EXPECT(table_find(&t, 0x1100) == NULL, "one past the end is outside");
    EXPECT(table_find(&t, 0x2010)->mem == MEM_PINNED, "pinned");
    EXPECT(table_free(&t, 0x1010) == NULL, "a free must name the start");
    EXPECT(table_free(&t, 0x1000) != NULL, "free");
    a = table_find(&t, 0x1010);
    EXPECT(a && a->freed, "a freed range is remembered as freed");
    /* The allocator hands the address out again: the live entry wins. */
    table_add(&t, 0x1000, 0x80, MEM_MANAGED, 1);
    a = table_find(&t, 0x1010);
    EXPECT(a && !a->freed && a->mem == MEM_MANAGED && a->dev == 1, "reuse after free");
    EXPECT(table_find(&t, 0x10c0) == NULL, "the stale tail went with the reuse");
    EXPECT(strcmp(mem_pointer_name(MEM_PITCHED), "device") == 0, "pitched memory is device memory");
    EXPECT(strcmp(mem_alloc_name(MEM_PITCHED), "pitched") == 0, "its allocation is pitched");
    table_clear(&t);
}

static void *in_thread(void *arg)
{
    (void)arg;
    void *q = calloc(1, 200);
    long long got = heap_chunk_usable(q);
    free(q);
    return (void *)(intptr_t)(got == -1);
}

static int in_bss[64];

static void test_heap_chunks(void)
{
    void *warm[500];
    for (int i = 0; i < 500; i++) /* a heap with many chunks to walk */
        warm[i] = malloc((size_t)(16 + (i * 37) % 900));
    char *p = calloc(1, 100);
    long long got = heap_chunk_usable(p);
    EXPECT(got == (long long)malloc_usable_size(p) && got >= 100, "heap chunk: %lld vs %zu", got,
           malloc_usable_size(p));
    EXPECT(heap_chunk_usable(p + 16) == -1, "an interior pointer is no chunk");
    for (int i = 0; i < 500; i += 7)
        EXPECT(heap_chunk_usable(warm[i]) == (long long)malloc_usable_size(warm[i]), "chunk %d", i);
    char *big = malloc(8u << 20); /* above the mmap threshold */
    got = heap_chunk_usable(big);
    EXPECT(got == (long long)malloc_usable_size(big), "mmap-ed chunk: %lld vs %zu", got,
           malloc_usable_size(big));
    EXPECT(heap_chunk_usable(big + 4096) == -1, "a page inside an mmap-ed chunk");
    int on_stack[32];
    on_stack[0] = 1;
    EXPECT(heap_chunk_usable(on_stack) == -1, "stack");
    EXPECT(heap_chunk_usable(in_bss) == -1, "static storage");
    EXPECT(heap_chunk_usable(NULL) == -1, "null");
    EXPECT(heap_chunk_usable((char *)p + 1) == -1, "misaligned");
    pthread_t th;
    void *ok = NULL;
    pthread_create(&th, NULL, in_thread, NULL);
    pthread_join(th, &ok);
    EXPECT(ok != NULL, "a thread arena's chunk is not looked up");
    free(big);
    free(p);
    for (int i = 0; i < 500; i++)
        free(warm[i]);
}

static void test_maps(void)
{
    maps_t m = {0};
    int local = 0;
    char *small = malloc(64);
    /* Above glibc's largest mmap threshold: test_heap_chunks's free of an
     * mmap-ed block raised the threshold to that block's size. */
    char *big = malloc(64u << 20);
    EXPECT(maps_read(&m) == 0 && m.n > 0, "read /proc/self/maps");
    EXPECT(maps_where(&m, (uintptr_t)small) == HOST_HEAP, "malloc block: %s",
           host_where_name(maps_where(&m, (uintptr_t)small)));
    EXPECT(maps_where(&m, (uintptr_t)big) == HOST_ANON, "mmap-ed block: %s",
           host_where_name(maps_where(&m, (uintptr_t)big)));
    EXPECT(maps_where(&m, (uintptr_t)&local) == HOST_STACK, "stack");
    EXPECT(maps_where(&m, (uintptr_t)in_bss) == HOST_DATA, "static storage");
    EXPECT(maps_where(&m, (uintptr_t)test_maps) == HOST_NONE, "code is not writable");
    EXPECT(maps_where(&m, 1000) == HOST_NONE, "a small integer");
    EXPECT(maps_where(&m, 0x3ff0000000000000ULL) == HOST_NONE, "the double 1.0");
    EXPECT(maps_readable(&m, (uintptr_t)big, 64u << 20), "readable");
    EXPECT(!maps_readable(&m, 8, 8), "page zero");

    /* chapter 17's struct: a count, then the address of a malloc block. */
    struct { long count; int *values; int tail[3]; } array = {5, (int *)small, {1, 2, 3}};
    size_t offs[4];
    uintptr_t vals[4];
    size_t hits = scan_host_pointers(&m, (const unsigned char *)&array, sizeof array, offs, vals, 4);
    EXPECT(hits == 1 && offs[0] == 8 && vals[0] == (uintptr_t)small, "one host pointer at 8: %zu", hits);
    array.values = (int *)0x7f0000000000ULL; /* a device address: not host memory here */
    if (maps_where(&m, (uintptr_t)array.values) == HOST_NONE)
        EXPECT(scan_host_pointers(&m, (const unsigned char *)&array, sizeof array, offs, vals, 4) == 0,
               "no host pointer");
    double doubles[16];
    for (int i = 0; i < 16; i++)
        doubles[i] = i * 0.5;
    EXPECT(scan_host_pointers(&m, (const unsigned char *)doubles, sizeof doubles, offs, vals, 4) == 0,
           "doubles are no pointers");
    free(big);
    free(small);
    maps_free(&m);
}

int main(int argc, char **argv)
{
    python = argc > 1 ? argv[1] : NULL;
    malloc_address = malloc; /* in code, not data: see malloc_address */
    test_writer();
    test_table();
    test_heap_chunks();
    test_maps();
    if (failures) {
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("trace core: all checks passed%s\n", python ? " (JSON read back by Python)" : "");
    return 0;
}
