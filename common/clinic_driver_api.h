/**
 * \file clinic_driver_api.h
 * \brief The CUDA driver API for a Clinic program that calls it (chapter 31),
 *        without linking the driver library: a table `cu` of the driver
 *        functions, filled by clinic_load_driver_api(), and check_cu(), the
 *        check_cuda() of driver calls.
 *
 * Why not link libcuda (`-lcuda`)? The driver API lives in the NVIDIA
 * driver's `libcuda.so.1`, and a program linked with it cannot even start
 * on a machine without the driver: the loader stops it, with status 127,
 * before main() runs, so it could never print `[SKIPPED] <why>` and exit 77
 * as every Clinic program does (require_gpu_or_skip()). The CUDA runtime
 * loads the driver only when it is first called, and hands out the driver's
 * functions through cudaGetDriverEntryPointByVersion(). So a program calls
 * require_gpu_or_skip() first, as always, then clinic_load_driver_api(),
 * and from then on `cu.MemAlloc(...)` is `cuMemAlloc(...)`, and so on:
 *
 *     require_gpu_or_skip();
 *     clinic_load_driver_api();
 *     check_cu(cu.Init(0));
 *
 * Each function is asked for as it was in CUDA 12.0, the form that its
 * `PFN_cu<Name>_v<version>` type in `<cudaTypedefs.h>` describes: a later
 * driver keeps that form even where it added a newer one.
 *
 * Only the functions the Clinic's programs call are in the table; another
 * one takes a line in the struct and a line in clinic_load_driver_api().
 */
#ifndef CLINIC_DRIVER_API_H
#define CLINIC_DRIVER_API_H

#include <cudaTypedefs.h> /* the driver API's types and function types */
#include "check_cuda.h"

/** The driver API functions a program can call: `cu.Init` is `cuInit`. */
struct clinic_driver_api {
    PFN_cuGetErrorName_v6000 GetErrorName;                      /**< cuGetErrorName */
    PFN_cuGetErrorString_v6000 GetErrorString;                  /**< cuGetErrorString */
    PFN_cuInit_v2000 Init;                                      /**< cuInit */
    PFN_cuDeviceGet_v2000 DeviceGet;                            /**< cuDeviceGet */
    PFN_cuDevicePrimaryCtxRetain_v7000 DevicePrimaryCtxRetain;  /**< cuDevicePrimaryCtxRetain */
    PFN_cuDevicePrimaryCtxRelease_v11000 DevicePrimaryCtxRelease; /**< cuDevicePrimaryCtxRelease */
    PFN_cuCtxGetCurrent_v4000 CtxGetCurrent;                    /**< cuCtxGetCurrent */
    PFN_cuCtxSetCurrent_v4000 CtxSetCurrent;                    /**< cuCtxSetCurrent */
    PFN_cuCtxPushCurrent_v4000 CtxPushCurrent;                  /**< cuCtxPushCurrent */
    PFN_cuCtxPopCurrent_v4000 CtxPopCurrent;                    /**< cuCtxPopCurrent */
    PFN_cuMemAlloc_v3020 MemAlloc;                              /**< cuMemAlloc */
    PFN_cuMemsetD32_v3020 MemsetD32;                            /**< cuMemsetD32 */
    PFN_cuMemcpyDtoH_v3020 MemcpyDtoH;                          /**< cuMemcpyDtoH */
    PFN_cuMemFree_v3020 MemFree;                                /**< cuMemFree */
};

/** The table, filled by clinic_load_driver_api(): `cu.MemAlloc(&p, bytes)`. */
static struct clinic_driver_api cu;

/**
 * Asks the runtime for the driver function \p symbol (`"cuInit"`) in its
 * CUDA 12.0 form and stores it in the function pointer at \p slot (an entry
 * of #cu). A failed request is a failed CUDA call (check_cuda()); a driver
 * without the function prints `<symbol>: not found in the driver` and exits
 * with #CLINIC_EXIT_CUDA_ERROR.
 */
static inline void clinic_load_driver_function(const char *symbol, void *slot)
{
    void **fn = (void **)slot; /* where the function's address goes */
    check_cuda(cudaGetDriverEntryPointByVersion(symbol, fn, 12000,
                                                cudaEnableDefault, NULL));
    if (*fn == NULL) {
        fflush(stdout);
        fprintf(stderr, "%s: not found in the driver\n", symbol);
        exit(CLINIC_EXIT_CUDA_ERROR);
    }
}

/** Fills one entry of #cu: `CLINIC_LOAD_DRIVER(MemAlloc)` asks for `cuMemAlloc`. */
#define CLINIC_LOAD_DRIVER(name) \
    clinic_load_driver_function("cu" #name, &cu.name)

/**
 * Fills the table #cu. Call it right after require_gpu_or_skip(), which
 * has made sure that there is a driver to ask.
 */
static inline void clinic_load_driver_api(void)
{
    CLINIC_LOAD_DRIVER(GetErrorName);
    CLINIC_LOAD_DRIVER(GetErrorString);
    CLINIC_LOAD_DRIVER(Init);
    CLINIC_LOAD_DRIVER(DeviceGet);
    CLINIC_LOAD_DRIVER(DevicePrimaryCtxRetain);
    CLINIC_LOAD_DRIVER(DevicePrimaryCtxRelease);
    CLINIC_LOAD_DRIVER(CtxGetCurrent);
    CLINIC_LOAD_DRIVER(CtxSetCurrent);
    CLINIC_LOAD_DRIVER(CtxPushCurrent);
    CLINIC_LOAD_DRIVER(CtxPopCurrent);
    CLINIC_LOAD_DRIVER(MemAlloc);
    CLINIC_LOAD_DRIVER(MemsetD32);
    CLINIC_LOAD_DRIVER(MemcpyDtoH);
    CLINIC_LOAD_DRIVER(MemFree);
}

/**
 * check_cuda() for a driver call's `CUresult`: when \p r is not
 * `CUDA_SUCCESS`, prints `file:line: call failed: CUDA_ERROR_NAME
 * (description)` to stderr and exits with #CLINIC_EXIT_CUDA_ERROR.
 */
static inline void clinic_check_cu(CUresult r, const char *call,
                                   const char *file, int line)
{
    const char *name = "?", *text = "?";
    if (r == CUDA_SUCCESS)
        return;
    cu.GetErrorName(r, &name);
    cu.GetErrorString(r, &text);
    fflush(stdout); /* keep what the program printed before the error in order */
    fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", clinic_basename(file),
            line, call, name, text);
    exit(CLINIC_EXIT_CUDA_ERROR);
}

/** Checks one driver API call: `check_cu(cu.MemAlloc(&p, bytes));` */
#define check_cu(call) clinic_check_cu((call), #call, __FILE__, __LINE__)

#endif /* CLINIC_DRIVER_API_H */
