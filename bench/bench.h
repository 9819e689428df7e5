/**
 * \file bench.h
 * \brief What the copy-lab programs share: their command-line options, CSV
 *        files, the median of repeated timings and a test pattern for the data.
 *
 * Unlike the chapters' programs, the lab's programs print timings: what they
 * measure is the point, so their output is never compared with a recording.
 * Exit codes are the Clinic's (0 ok, 1 wrong data, 2 a CUDA call failed,
 * 77 no GPU), plus #BENCH_EXIT_USAGE and #BENCH_EXIT_IO.
 */
#ifndef CLINIC_BENCH_H
#define CLINIC_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_EXIT_USAGE 64 /**< Unknown or incomplete option (sysexits' EX_USAGE). */
#define BENCH_EXIT_IO 74    /**< A CSV file could not be written (sysexits' EX_IOERR). */

/** What the command line asked for. */
typedef struct {
    const char *csv_path;      /**< --csv PATH: the results as CSV (NULL: none). */
    const char *timeline_path; /**< --timeline PATH: per-operation times (overlap only). */
    int quick;                 /**< --quick: a short run, for the tests. */
} bench_options;

/** Reads the options; prints a usage line and exits #BENCH_EXIT_USAGE on anything else. */
static inline void bench_parse_options(int argc, char **argv, int takes_timeline,
                                       bench_options *opt)
{
    memset(opt, 0, sizeof *opt);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            opt->quick = 1;
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            opt->csv_path = argv[++i];
        } else if (takes_timeline && strcmp(argv[i], "--timeline") == 0 && i + 1 < argc) {
            opt->timeline_path = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--quick] [--csv PATH]%s\n", argv[0],
                    takes_timeline ? " [--timeline PATH]" : "");
            exit(BENCH_EXIT_USAGE);
        }
    }
}

/** Opens \p path for writing and writes the header line; NULL path: no file, returns NULL. */
static inline FILE *bench_open_csv(const char *path, const char *header)
{
    FILE *f;
    if (path == NULL)
        return NULL;
    f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(BENCH_EXIT_IO);
    }
    fprintf(f, "%s\n", header);
    return f;
}

/** Closes a file from bench_open_csv(), and exits #BENCH_EXIT_IO if any write failed. */
static inline void bench_close_csv(FILE *f, const char *path)
{
    if (f == NULL)
        return;
    if (ferror(f) | fclose(f)) { /* both, so the file is closed either way */
        fprintf(stderr, "writing %s failed\n", path);
        exit(BENCH_EXIT_IO);
    }
}

static inline int bench_compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/** Sorts the \p n values in place and returns their median. */
static inline float bench_median(float *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, bench_compare_floats);
    return n % 2 ? values[n / 2] : 0.5f * (values[n / 2 - 1] + values[n / 2]);
}

/** Word \p i of the test pattern \p tag: every tag gives other data, so stale data shows. */
static inline unsigned int bench_pattern(size_t i, unsigned int tag)
{
    return (unsigned int)i * 2654435761u + tag * 40503u + 1u;
}

/** Fills \p n words with pattern \p tag. */
static inline void bench_fill(unsigned int *words, size_t n, unsigned int tag)
{
    for (size_t i = 0; i < n; i++)
        words[i] = bench_pattern(i, tag);
}

/** Counts the words of \p n that differ from pattern \p tag; prints the first one that does. */
static inline size_t bench_count_wrong(const char *what, const unsigned int *words, size_t n,
                                unsigned int tag)
{
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) {
        if (words[i] != bench_pattern(i, tag)) {
            if (wrong == 0)
                printf("%s: wrong data, first at word %zu: got %u, expected %u\n", what, i,
                       words[i], bench_pattern(i, tag));
            wrong++;
        }
    }
    return wrong;
}

#endif /* CLINIC_BENCH_H */
