/** \file trace_core.c
 *  \brief Host-only parts of the API trace library: the JSON-line writer, the
 *         allocation table and the glibc heap-chunk look-up (trace_core.h).
 */
#define _GNU_SOURCE
#include "trace_core.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- JSON writer ---------------------------------------------------------- */

/* Room kept back for the closing brackets and ,"truncated":true. */
#define JW_RESERVE (JW_MAX_DEPTH + 24)

void jw_init(jw_t *w, char *buf, size_t size)
{
    w->buf = buf;
    w->cap = size > JW_RESERVE + 2 ? size - JW_RESERVE - 2 : 0;
    w->len = 0;
    w->full = 0;
    w->depth = 0;
    if (w->cap == 0) {
        w->full = 1;
        return;
    }
    w->buf[w->len++] = '{';
    w->close[0] = '}';
    w->first[0] = 1;
    w->depth = 1;
}

/* Appends n bytes whole, or marks the writer full. */
static int jw_put(jw_t *w, const char *s, size_t n)
{
    if (w->full || w->len + n > w->cap) {
        w->full = 1;
        return 0;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    return 1;
}

/* Length of a valid UTF-8 sequence at s (1..4), or 0 if it is not one. */
static int utf8_len(const unsigned char *s)
{
    int n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* Writes s as a JSON string into out (at most outsize bytes); returns the
 * length, or 0 if it did not fit. Invalid UTF-8 becomes U+FFFD. */
static size_t json_quote(char *out, size_t outsize, const char *s)
{
    size_t k = 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    if (outsize < 3)
        return 0;
    out[k++] = '"';
    while (*p) {
        char tmp[8];
        size_t m = 0;
        const char *src = tmp;
        if (*p == '"' || *p == '\\') {
            tmp[0] = '\\';
            tmp[1] = (char)*p;
            m = 2;
            p++;
        } else if (*p < 0x20) {
            m = (size_t)snprintf(tmp, sizeof tmp, "\\u%04x", *p);
            p++;
        } else if (*p < 0x80) {
            tmp[0] = (char)*p;
            m = 1;
            p++;
        } else {
            int u = utf8_len(p);
            if (u) {
                src = (const char *)p;
                m = (size_t)u;
                p += u;
            } else {
                memcpy(tmp, "\\ufffd", 6);
                m = 6;
                p++;
            }
        }
        if (k + m + 1 >= outsize)
            return 0;
        memcpy(out + k, src, m);
        k += m;
    }
    out[k++] = '"';
    return k;
}

/* Appends the separator and "key": then value text (already JSON) whole. */
static void jw_pair(jw_t *w, const char *key, const char *value, size_t vlen)
{
    char head[160];
    size_t h = 0;
    if (w->full || w->depth == 0)
        return;
    if (!w->first[w->depth - 1])
        head[h++] = ',';
    if (key) {
        size_t q = json_quote(head + h, sizeof head - h - 1, key);
        if (!q) {
            w->full = 1;
            return;
        }
        h += q;
        head[h++] = ':';
    }
    if (w->len + h + vlen > w->cap) {
        w->full = 1;
        return;
    }
    jw_put(w, head, h);
    jw_put(w, value, vlen);
    w->first[w->depth - 1] = 0;
}

void jw_str(jw_t *w, const char *key, const char *value)
{
    char tmp[4096];
    size_t n = json_quote(tmp, sizeof tmp, value);
    if (!n) { /* longer than a record field should be: cut it */
        char cut[1024];
        snprintf(cut, sizeof cut, "%s", value ? value : "");
        n = json_quote(tmp, sizeof tmp, cut);
    }
    jw_pair(w, key, tmp, n);
}

void jw_int(jw_t *w, const char *key, long long value)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%lld", value);
    jw_pair(w, key, tmp, (size_t)n);
}

void jw_uint(jw_t *w, const char *key, unsigned long long value)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu", value);
    jw_pair(w, key, tmp, (size_t)n);
}

void jw_ptr(jw_t *w, const char *key, uintptr_t value)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "\"0x%llx\"", (unsigned long long)value);
    jw_pair(w, key, tmp, (size_t)n);
}

void jw_bool(jw_t *w, const char *key, int value)
{
    jw_pair(w, key, value ? "true" : "false", value ? 4 : 5);
}

void jw_hexle(jw_t *w, const char *key, const unsigned char *bytes, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char tmp[2 * 256 + 8];
    size_t k = 0;
    if (n > 256)
        n = 256; /* the caller says when it cut a value */
    tmp[k++] = '"';
    tmp[k++] = '0';
    tmp[k++] = 'x';
    for (size_t i = n; i-- > 0;) {
        tmp[k++] = digits[bytes[i] >> 4];
        tmp[k++] = digits[bytes[i] & 15];
    }
    if (n == 0)
        tmp[k++] = '0';
    tmp[k++] = '"';
    jw_pair(w, key, tmp, k);
}

void jw_open(jw_t *w, const char *key, char kind)
{
    char c = kind == '[' ? '[' : '{';
    if (w->full || w->depth >= JW_MAX_DEPTH) {
        w->full = 1;
        return;
    }
    size_t before = w->len;
    jw_pair(w, key, &c, 1);
    if (w->full || w->len == before)
        return;
    w->close[w->depth] = c == '[' ? ']' : '}';
    w->first[w->depth] = 1;
    w->depth++;
}

void jw_close(jw_t *w)
{
    /* Once full, containers stay open until jw_finish, which closes them all. */
    if (w->full || w->depth <= 1)
        return;
    w->depth--;
    w->buf[w->len++] = w->close[w->depth]; /* the reserve has room */
}

size_t jw_finish(jw_t *w)
{
    int truncated = w->full;
    if (w->cap == 0)
        return 0;
    while (w->depth > 1) {
        w->depth--;
        w->buf[w->len++] = w->close[w->depth];
    }
    if (truncated) {
        static const char t[] = ",\"truncated\":true";
        const char *s = w->first[0] ? t + 1 : t;
        memcpy(w->buf + w->len, s, strlen(s));
        w->len += strlen(s);
    }
    w->buf[w->len++] = '}';
    w->buf[w->len++] = '\n';
    w->depth = 0;
    return w->len;
}

/* ---- allocation table ----------------------------------------------------- */

const char *mem_alloc_name(enum mem_class m)
{
    switch (m) {
    case MEM_DEVICE: return "device";
    case MEM_PINNED: return "pinned";
    case MEM_MANAGED: return "managed";
    case MEM_REGISTERED: return "registered";
    case MEM_PITCHED: return "pitched";
    case MEM_ASYNC: return "async";
    case MEM_PAGEABLE: return "pageable";
    default: return "unknown";
    }
}

const char *mem_pointer_name(enum mem_class m)
{
    return m == MEM_PITCHED || m == MEM_ASYNC ? "device" : mem_alloc_name(m);
}

static int overlaps(const alloc_t *a, uintptr_t base, size_t size)
{
    uintptr_t aend = a->base + (a->size ? a->size : 1);
    uintptr_t end = base + (size ? size : 1);
    return a->base < end && base < aend;
}

/* Freed entries kept at most; older ones go first when the table is full. */
#define TABLE_MAX 65536

int table_add(alloc_table_t *t, uintptr_t base, size_t size, enum mem_class mem, int dev)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) /* a new allocation ends any stale entry */
        if (!(t->v[i].freed && overlaps(&t->v[i], base, size)))
            t->v[k++] = t->v[i];
    t->n = k;
    if (t->n >= TABLE_MAX) { /* forget the oldest freed entry, else the oldest */
        size_t drop = 0;
        for (size_t i = 0; i < t->n; i++)
            if (t->v[i].freed) {
                drop = i;
                break;
            }
        memmove(t->v + drop, t->v + drop + 1, (t->n - drop - 1) * sizeof *t->v);
        t->n--;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        alloc_t *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v;
        t->cap = cap;
    }
    alloc_t a = {base, size, mem, dev, 0};
    t->v[t->n++] = a;
    return 0;
}

const alloc_t *table_free(alloc_table_t *t, uintptr_t base)
{
    for (size_t i = t->n; i-- > 0;)
        if (!t->v[i].freed && t->v[i].base == base) {
            t->v[i].freed = 1;
            return &t->v[i];
        }
    return NULL;
}

const alloc_t *table_find(const alloc_table_t *t, uintptr_t p)
{
    const alloc_t *stale = NULL;
    for (size_t i = t->n; i-- > 0;) { /* newest first */
        const alloc_t *a = &t->v[i];
        if (p >= a->base && p - a->base < (a->size ? a->size : 1)) {
            if (!a->freed)
                return a;
            if (!stale)
                stale = a;
        }
    }
    return stale;
}

void table_clear(alloc_table_t *t)
{
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}

/* ---- glibc heap chunks ---------------------------------------------------- */

/* glibc's chunk header (malloc/malloc.c): prev_size, then size with the flags
 * PREV_INUSE (1), IS_MMAPPED (2) and NON_MAIN_ARENA (4) in its low bits. The
 * user pointer is the chunk plus two words. */
#define CHUNK_HDR (2 * sizeof(size_t))
#define PREV_INUSE 1u
#define IS_MMAPPED 2u
#define NON_MAIN_ARENA 4u
#define SIZE_BITS 7u

enum map_kind { MAP_NONE, MAP_HEAP, MAP_ANON, MAP_OTHER };

/* Calls each(ctx, start, end, perms, path) for every line of
 * /proc/self/maps, read with plain read() (the reading uses no stdio and no
 * malloc: it runs inside CUDA calls); stops when each returns nonzero.
 * Returns -1 if the file cannot be opened, else the last value each
 * returned. */
typedef int (*maps_line_fn)(void *ctx, uintptr_t start, uintptr_t end,
                            const char *perms, const char *path);

static int maps_each(maps_line_fn each, void *ctx)
{
    char buf[8192];
    char line[4096 + 256];
    size_t ll = 0;
    int stop = 0;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (!stop) {
        ssize_t got = read(fd, buf, sizeof buf);
        if (got <= 0)
            break;
        for (ssize_t i = 0; i < got && !stop; i++) {
            if (buf[i] != '\n') {
                if (ll < sizeof line - 1)
                    line[ll++] = buf[i];
                continue;
            }
            line[ll] = 0;
            ll = 0;
            unsigned long long s, e;
            char perms[8] = "";
            int path_at = 0;
            if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &s, &e, perms, &path_at) < 3)
                continue;
            stop = each(ctx, (uintptr_t)s, (uintptr_t)e, perms,
                        path_at > 0 ? line + path_at : "");
        }
    }
    close(fd);
    return stop;
}

struct mapping_query {
    uintptr_t addr, start, end;
    enum map_kind found;
};

static int mapping_holding(void *ctx, uintptr_t s, uintptr_t e,
                           const char *perms, const char *path)
{
    struct mapping_query *q = ctx;
    if (q->addr < s || q->addr >= e)
        return 0;
    q->start = s;
    q->end = e;
    if (strncmp(perms, "rw", 2) != 0)
        q->found = MAP_OTHER;
    else if (strcmp(path, "[heap]") == 0)
        q->found = MAP_HEAP;
    else
        q->found = path[0] ? MAP_OTHER : MAP_ANON;
    return 1;
}

/* Finds the mapping of /proc/self/maps that holds addr. */
static enum map_kind find_mapping(uintptr_t addr, uintptr_t *start, uintptr_t *end)
{
    struct mapping_query q = {addr, 0, 0, MAP_NONE};
    maps_each(mapping_holding, &q);
    if (q.found != MAP_NONE) {
        *start = q.start;
        *end = q.end;
    }
    return q.found;
}

static size_t word_at(uintptr_t a)
{
    size_t v;
    memcpy(&v, (const void *)a, sizeof v);
    return v;
}

/* The size glibc's headers give the chunk at p, or -1 if p does not start
 * one (the checks of heap_chunk_usable, without calling into malloc). */
static long long chunk_size_at(uintptr_t mem)
{
    uintptr_t start, end;
    long page = sysconf(_SC_PAGESIZE);
    if (mem < CHUNK_HDR || mem % (2 * sizeof(size_t)) != 0 || page <= 0)
        return -1;
    uintptr_t chunk = mem - CHUNK_HDR;
    enum map_kind kind = find_mapping(chunk, &start, &end);
    if (kind == MAP_HEAP) {
        /* Walk the main arena from its first chunk: p is a chunk only if the
         * walk lands on it. The heap starts aligned, so its first chunk does. */
        uintptr_t c = (start + 2 * sizeof(size_t) - 1) & ~(uintptr_t)(2 * sizeof(size_t) - 1);
        for (long steps = 0; steps < (1L << 24) && c + CHUNK_HDR <= end; steps++) {
            size_t sz = word_at(c + sizeof(size_t));
            size_t csz = sz & ~(size_t)SIZE_BITS;
            if (csz < CHUNK_HDR || csz % (2 * sizeof(size_t)) != 0 || csz > end - c)
                return -1;
            if (c == chunk) {
                if (sz & (IS_MMAPPED | NON_MAIN_ARENA))
                    return -1;
                uintptr_t next = c + csz;
                if (next + CHUNK_HDR > end || !(word_at(next + sizeof(size_t)) & PREV_INUSE))
                    return -1; /* free, or the top chunk */
                return (long long)(csz - sizeof(size_t));
            }
            if (c > chunk)
                return -1;
            c += csz;
        }
        return -1;
    }
    if (kind == MAP_ANON) {
        /* An mmap-ed chunk: flagged so, and starting (less any alignment
         * offset, kept in prev_size) on a page of its own mapping. */
        size_t off = word_at(chunk);
        size_t sz = word_at(chunk + sizeof(size_t));
        size_t csz = sz & ~(size_t)SIZE_BITS;
        if ((sz & SIZE_BITS) != IS_MMAPPED || off >= (size_t)page || chunk - off < start)
            return -1;
        if ((chunk - off) % (uintptr_t)page != 0 || (csz + off) % (size_t)page != 0)
            return -1;
        if (csz < (size_t)page || csz > end - chunk)
            return -1;
        return (long long)(csz - CHUNK_HDR);
    }
    return -1;
}

/* glibc's malloc_usable_size, taken from libc itself, when the process's
 * malloc is glibc's; else NULL. Comparing symbol addresses cannot tell (a
 * program that is not position-independent makes its own PLT entry the
 * address of malloc), so a block from the process's malloc, too large for
 * anything but an mmap-ed chunk, must carry glibc's header. jemalloc,
 * tcmalloc and the like fail that and turn the look-up off. */
static size_t (*glibc_usable_size(void))(void *)
{
    static int done;
    static size_t (*fn)(void *);
    if (!done) {
        void *libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
        void *mus = libc ? dlsym(libc, "malloc_usable_size") : NULL;
        size_t probe_size = (size_t)64 << 20; /* above glibc's largest mmap threshold */
        void *probe = mus ? malloc(probe_size) : NULL;
        if (probe && chunk_size_at((uintptr_t)probe) >= (long long)probe_size)
            *(void **)&fn = mus;
        free(probe);
        if (libc)
            dlclose(libc);
        done = 1;
    }
    return fn;
}

long long heap_chunk_usable(const void *p)
{
    size_t (*usable)(void *) = glibc_usable_size();
    if (!usable || chunk_size_at((uintptr_t)p) < 0)
        return -1;
    return (long long)usable((void *)p);
}

/* ---- host memory map ------------------------------------------------------ */

/* Adds one line of /proc/self/maps to the map (ctx); returns nonzero, which
 * stops the reading, only when out of memory. */
static int maps_add(void *ctx, uintptr_t s, uintptr_t e, const char *perms,
                    const char *path)
{
    maps_t *m = ctx;
    map_range_t r = {s, e, HOST_NONE, perms[0] == 'r'};
    if (perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p') {
        if (strcmp(path, "[heap]") == 0)
            r.where = HOST_HEAP;
        else if (strncmp(path, "[stack", 6) == 0)
            r.where = HOST_STACK;
        else if (!path[0])
            r.where = HOST_ANON;
        else if (path[0] == '/')
            r.where = HOST_DATA;
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        map_range_t *v = realloc(m->v, cap * sizeof *v);
        if (!v)
            return 1;
        m->v = v;
        m->cap = cap;
    }
    m->v[m->n++] = r;
    return 0;
}

int maps_read(maps_t *m)
{
    m->n = 0;
    return maps_each(maps_add, m) == 0 ? 0 : -1;
}

/* The mapping that holds p (the file lists them in address order), or NULL. */
static const map_range_t *maps_find(const maps_t *m, uintptr_t p)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p < m->v[mid].start)
            hi = mid;
        else if (p >= m->v[mid].end)
            lo = mid + 1;
        else
            return &m->v[mid];
    }
    return NULL;
}

enum host_where maps_where(const maps_t *m, uintptr_t p)
{
    const map_range_t *r = maps_find(m, p);
    return r ? (enum host_where)r->where : HOST_NONE;
}

int maps_readable(const maps_t *m, uintptr_t p, size_t n)
{
    uintptr_t end = p + n;
    if (end < p)
        return 0;
    while (p < end) {
        const map_range_t *r = maps_find(m, p);
        if (!r || !r->readable)
            return 0;
        p = r->end;
    }
    return 1;
}

const char *host_where_name(enum host_where w)
{
    switch (w) {
    case HOST_HEAP: return "heap";
    case HOST_STACK: return "stack";
    case HOST_ANON: return "anon";
    case HOST_DATA: return "data";
    default: return "none";
    }
}

void maps_free(maps_t *m)
{
    free(m->v);
    m->v = NULL;
    m->n = m->cap = 0;
}

size_t scan_host_pointers(const maps_t *m, const unsigned char *buf, size_t len, size_t *offsets,
                          uintptr_t *values, size_t max_hits)
{
    size_t hits = 0;
    size_t skip = (8 - (uintptr_t)buf % 8) % 8; /* words at addresses multiple of 8 */
    for (size_t off = skip; off + 8 <= len; off += 8) {
        uintptr_t v;
        memcpy(&v, buf + off, sizeof v);
        if (v < 0x10000 || maps_where(m, v) == HOST_NONE)
            continue;
        if (hits < max_hits) {
            offsets[hits] = off;
            values[hits] = v;
        }
        hits++;
    }
    return hits;
}
