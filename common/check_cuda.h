/**
 * \file check_cuda.h
 * \brief The one small header every Clinic program includes: error checks,
 *        a skip when there is no GPU, and a deterministic result check.
 *
 * Exit codes used by every program (see docs/exit-codes.md):
 * - 0  (#CLINIC_EXIT_OK): the program ran and its results were right;
 * - 1  (#CLINIC_EXIT_WRONG_RESULT): the program ran but its results were wrong;
 * - 2  (#CLINIC_EXIT_CUDA_ERROR): a CUDA call failed and check_cuda() stopped the program;
 * - 77 (#CLINIC_EXIT_SKIP): no usable GPU (or fewer than a multi-GPU program
 *   needs, require_gpus_or_skip()), so nothing was run (CTest reports "Skipped").
 *
 * Debug switch: when the compile definition `CLINIC_DEBUG_SYNC` is set, or the
 * environment variable `CLINIC_DEBUG_SYNC` is set to anything but `0`,
 * check_launch() also synchronizes, so a fault inside a kernel is blamed on
 * the launch that caused it rather than on some later call.
 *
 * The header is plain C plus the CUDA runtime API, so host-only C code can use
 * it too (the unit tests in tests/ do).
 */
#ifndef CLINIC_CHECK_CUDA_H
#define CLINIC_CHECK_CUDA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#define CLINIC_EXIT_OK 0           /**< Ran, and the results were right. */
#define CLINIC_EXIT_WRONG_RESULT 1 /**< Ran, but the results were wrong. */
#define CLINIC_EXIT_CUDA_ERROR 2   /**< A checked CUDA call failed. */
#define CLINIC_EXIT_SKIP 77        /**< No usable GPU; CTest's skip code. */

/** The file name without its directories, so messages read the same on every machine. */
static inline const char *clinic_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/**
 * Formats the message for a failed CUDA call:
 * `file:line: expr failed: cudaErrorName (error string)`.
 * Returns what snprintf returns.
 */
static inline int clinic_format_error(char *buf, size_t size, cudaError_t err,
                                      const char *expr, const char *file, int line)
{
    return snprintf(buf, size, "%s:%d: %s failed: %s (%s)", clinic_basename(file), line,
                    expr, cudaGetErrorName(err), cudaGetErrorString(err));
}

/** Prints the message for \p err to stderr and exits with #CLINIC_EXIT_CUDA_ERROR; does nothing on success. */
static inline void clinic_check(cudaError_t err, const char *expr, const char *file, int line)
{
    char msg[512];
    if (err == cudaSuccess)
        return;
    clinic_format_error(msg, sizeof msg, err, expr, file, line);
    fflush(stdout); /* keep what the program printed before the error in order */
    fprintf(stderr, "%s\n", msg);
    exit(CLINIC_EXIT_CUDA_ERROR);
}

/** Checks one CUDA runtime call: `check_cuda(cudaMalloc(&p, bytes));` */
#define check_cuda(call) clinic_check((call), #call, __FILE__, __LINE__)

/**
 * malloc() that never returns NULL: when the host is out of memory it prints
 * `file:line: malloc(N bytes) failed` to stderr and exits with
 * #CLINIC_EXIT_CUDA_ERROR, like a failed CUDA call. Free the block with free().
 */
static inline void *clinic_host_alloc(size_t bytes, const char *file, int line)
{
    void *p = malloc(bytes);
    if (p == NULL) {
        fflush(stdout);
        fprintf(stderr, "%s:%d: malloc(%zu bytes) failed\n", clinic_basename(file), line, bytes);
        exit(CLINIC_EXIT_CUDA_ERROR);
    }
    return p;
}

/** Checked host allocation: `int *a = (int *)checked_malloc(n * sizeof(int));` */
#define checked_malloc(bytes) clinic_host_alloc((bytes), __FILE__, __LINE__)

/** True when the debug switch (compile definition or environment variable) is on. */
static inline int clinic_debug_sync(void)
{
#ifdef CLINIC_DEBUG_SYNC
    return 1;
#else
    const char *v = getenv("CLINIC_DEBUG_SYNC");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
#endif
}

/** Use right after a launch: catches configuration errors, and with the debug switch also faults during execution. */
static inline void clinic_check_launch(const char *file, int line)
{
    clinic_check(cudaGetLastError(), "kernel launch", file, line);
    if (clinic_debug_sync())
        clinic_check(cudaDeviceSynchronize(), "kernel execution (CLINIC_DEBUG_SYNC)", file, line);
}

/** Checks the launch just made: `kernel<<<g, b>>>(...); check_launch();` */
#define check_launch() clinic_check_launch(__FILE__, __LINE__)

/**
 * Decides whether there is a usable GPU, and if not, says why in words a user
 * can act on. \p err and \p count are what cudaGetDeviceCount() gave,
 * \p driver and \p runtime what cudaDriverGetVersion() and
 * cudaRuntimeGetVersion() gave (1000 * major + 10 * minor; the driver
 * version is 0 when no driver is installed). Returns 0 if there is a GPU;
 * otherwise writes the reason into \p why and returns 1.
 */
static inline int clinic_skip_reason(cudaError_t err, int count, int driver, int runtime,
                                     char *why, size_t size)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (err == cudaSuccess && count > 0)
        return 0;
    if (driver == 0) /* checked first: without a driver every call fails */
        snprintf(why, size, "no NVIDIA driver: libcuda.so.1 is not installed or cannot be loaded");
    else if (err == cudaErrorInsufficientDriver)
        snprintf(why, size,
                 "the NVIDIA driver is too old for this program: it supports CUDA %d.%d, "
                 "the program was built with CUDA %d.%d",
                 driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    else if (err == cudaErrorStubLibrary)
        snprintf(why, size, "libcuda.so.1 is the CUDA toolkit's stub, not a driver "
                            "(a stubs folder is on LD_LIBRARY_PATH)");
    else if (err == cudaErrorNoDevice || (err == cudaSuccess && count <= 0))
        snprintf(why, size, "the NVIDIA driver sees no CUDA device (CUDA_VISIBLE_DEVICES is %s%s%s)",
                 visible ? "\"" : "unset", visible ? visible : "", visible ? "\"" : "");
    else
        snprintf(why, size, "cudaGetDeviceCount failed: %s (%s)", cudaGetErrorName(err),
                 cudaGetErrorString(err));
    return 1;
}

/** Call first in main(): prints `[SKIPPED] <why>` and exits 77 when there is no usable GPU. */
static inline void require_gpu_or_skip(void)
{
    int count = 0, driver = 0, runtime = 0; /* left untouched when a call fails */
    char why[256];
    cudaError_t err = cudaGetDeviceCount(&count); /* before count is read */
    cudaDriverGetVersion(&driver);                /* 0 when there is no driver */
    cudaRuntimeGetVersion(&runtime);
    if (clinic_skip_reason(err, count, driver, runtime, why, sizeof why)) {
        printf("[SKIPPED] %s\n", why);
        exit(CLINIC_EXIT_SKIP);
    }
}

/**
 * Decides whether there are enough GPUs for a program that needs
 * \p needed of them. \p count is what cudaGetDeviceCount() gave (the
 * devices CUDA_VISIBLE_DEVICES lets the program see). Returns 0 if there
 * are enough; otherwise writes `this test needs N GPUs, the host has M`
 * into \p why (with the value of CUDA_VISIBLE_DEVICES when it is set) and
 * returns 1.
 */
static inline int clinic_gpus_reason(int needed, int count, char *why, size_t size)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (count >= needed)
        return 0;
    snprintf(why, size, "this test needs %d GPUs, the host has %d%s%s%s", needed, count,
             visible ? " visible (CUDA_VISIBLE_DEVICES is \"" : "", visible ? visible : "",
             visible ? "\")" : "");
    return 1;
}

/**
 * Call first in main() of a program that needs \p needed GPUs (label
 * multigpu): without any usable GPU it skips as require_gpu_or_skip() does;
 * with fewer than \p needed it prints `[SKIPPED] this test needs 2 GPUs,
 * the host has 1` and exits 77. The harness counts only the second skip as
 * a missing `multigpu`, so a one-GPU host stays green unless
 * CLINIC_REQUIRE names multigpu.
 */
static inline void require_gpus_or_skip(int needed)
{
    int count = 0;
    char why[256];
    require_gpu_or_skip();
    check_cuda(cudaGetDeviceCount(&count));
    if (clinic_gpus_reason(needed, count, why, sizeof why)) {
        printf("[SKIPPED] %s\n", why);
        exit(CLINIC_EXIT_SKIP);
    }
}

/**
 * Compares \p n ints with the expected values and prints one line:
 * `<what>: 0 of N elements wrong` or
 * `<what>: K of N elements wrong, first at [i]: got X, expected Y`.
 * Returns the number of wrong elements.
 */
static inline size_t check_ints(const char *what, const int *got, const int *want, size_t n)
{
    size_t wrong = 0, first = 0, i;
    for (i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            if (wrong == 0)
                first = i;
            wrong++;
        }
    }
    if (wrong == 0)
        printf("%s: 0 of %zu elements wrong\n", what, n);
    else
        printf("%s: %zu of %zu elements wrong, first at [%zu]: got %d, expected %d\n",
               what, wrong, n, first, got[first], want[first]);
    return wrong;
}

#endif /* CLINIC_CHECK_CUDA_H */
