/** \file trace_core.h
 *  \brief The parts of the API trace library that need no GPU and no CUPTI:
 *         a bounded JSON-line writer, the table of allocations that classifies
 *         pointers, and the safe look-up of a glibc heap chunk's size.
 *
 *  They are kept apart from clinic_trace.c so that a host-only unit test
 *  (test_trace_core.c) can check them on a machine without CUDA. None of
 *  these functions locks: the caller serialises access to a table.
 */
#ifndef CLINIC_TRACE_CORE_H
#define CLINIC_TRACE_CORE_H

#include <stddef.h>
#include <stdint.h>

/* ---- JSON writer ----------------------------------------------------------
 * Appends to a fixed buffer. Every key-value pair is appended whole or not at
 * all, so that when the buffer fills, jw_finish() can still close the record
 * as valid JSON (adding "truncated":true). */

#define JW_MAX_DEPTH 8

typedef struct {
    char *buf;
    size_t cap;                /* usable bytes, a reserve for closing kept apart */
    size_t len;
    int full;                  /* a pair did not fit: the rest is dropped */
    int depth;                 /* open containers, the record's own included */
    char close[JW_MAX_DEPTH];  /* '}' or ']' for each open container */
    int first[JW_MAX_DEPTH];   /* nothing written in it yet */
} jw_t;

void jw_init(jw_t *w, char *buf, size_t size); /* opens the record's '{' */
void jw_str(jw_t *w, const char *key, const char *value);
void jw_int(jw_t *w, const char *key, long long value);
void jw_uint(jw_t *w, const char *key, unsigned long long value);
void jw_ptr(jw_t *w, const char *key, uintptr_t value); /* "0x..." */
void jw_bool(jw_t *w, const char *key, int value);
/* "0x" and the bytes as one little-endian integer, most significant first. */
void jw_hexle(jw_t *w, const char *key, const unsigned char *bytes, size_t n);
void jw_open(jw_t *w, const char *key, char kind); /* kind '{' or '['; key NULL in an array */
void jw_close(jw_t *w);
/* Closes whatever is open and ends the line; returns its length. */
size_t jw_finish(jw_t *w);

/* ---- allocation table ---------------------------------------------------- */

enum mem_class {
    MEM_UNKNOWN = 0,
    MEM_DEVICE,
    MEM_PINNED,
    MEM_MANAGED,
    MEM_REGISTERED,
    MEM_PITCHED, /* device memory from cudaMallocPitch / cuMemAllocPitch / cudaMalloc3D */
    MEM_ASYNC,   /* device memory from a stream-ordered allocator */
    MEM_PAGEABLE
};

/* "device", "pinned", ...: the allocation's own kind (alloc records). */
const char *mem_alloc_name(enum mem_class m);
/* The class a copy's pointer gets: pitched and async memory is "device". */
const char *mem_pointer_name(enum mem_class m);

typedef struct {
    uintptr_t base;
    size_t size;
    enum mem_class mem;
    int dev;
    int freed; /* kept after its free, so that a stale pointer is not "pageable" */
} alloc_t;

typedef struct {
    alloc_t *v;
    size_t n, cap;
} alloc_table_t;

/* Records a live allocation; drops freed entries that it overlaps. 0 on success. */
int table_add(alloc_table_t *t, uintptr_t base, size_t size, enum mem_class mem, int dev);
/* Marks the live allocation that starts at base as freed; returns it, or NULL. */
const alloc_t *table_free(alloc_table_t *t, uintptr_t base);
/* The allocation, live or freed, that holds p (live ones first), or NULL. */
const alloc_t *table_find(const alloc_table_t *t, uintptr_t p);
void table_clear(alloc_table_t *t);

/* ---- glibc heap chunks --------------------------------------------------- */

/* The usable size of the glibc malloc chunk that starts exactly at p, or -1
 * when that cannot be learnt safely: the process's malloc is not glibc's, p
 * is not 16-byte aligned, p lies outside the main heap and outside an
 * mmap-ed chunk, or the walk over the heap's chunks does not land on p.
 * Only memory inside a mapping listed by /proc/self/maps is read. */
long long heap_chunk_usable(const void *p);

/* ---- host memory map ------------------------------------------------------
 * A snapshot of /proc/self/maps, to tell whether a value (a kernel argument, a
 * word inside copied data) is the address of host memory the program can
 * write: its heap, its stack, or another private writable mapping. */

enum host_where { HOST_NONE = 0, HOST_HEAP, HOST_STACK, HOST_ANON, HOST_DATA };

typedef struct {
    uintptr_t start, end;
    char where;    /* enum host_where: HOST_NONE for a mapping not writable */
    char readable;
} map_range_t;

typedef struct {
    map_range_t *v;
    size_t n, cap;
} maps_t;

int maps_read(maps_t *m); /* 0 on success */
/* Where p lies: HOST_NONE unless in a writable mapping. */
enum host_where maps_where(const maps_t *m, uintptr_t p);
/* Whether [p, p + n) is readable, one mapping after another. */
int maps_readable(const maps_t *m, uintptr_t p, size_t n);
const char *host_where_name(enum host_where w); /* "heap", "stack", "anon", "data" */
void maps_free(maps_t *m);

/* Up to max_hits 8-byte words of buf (8-byte aligned offsets, the first
 * len bytes) whose value is a host address (maps_where != HOST_NONE);
 * returns how many such words there are in all. */
size_t scan_host_pointers(const maps_t *m, const unsigned char *buf, size_t len, size_t *offsets,
                          uintptr_t *values, size_t max_hits);

#endif
