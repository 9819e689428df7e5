/**
 * \file broken.cu
 * \brief Chapter 31, broken: the main thread makes the device's primary
 *        context current and uses it through the driver API; a second
 *        thread then calls the driver API without making any context
 *        current, and its first call fails with CUDA_ERROR_INVALID_CONTEXT.
 */
#include <cudaTypedefs.h> /* the driver API's function types */
#include <pthread.h>
#include "check_cuda.h"

#define N 256 /* ints each thread allocates, fills and reads back */

/* The driver API functions the program calls, in their CUDA 12.0 forms
   (the PFN_ types): cu.Init is cuInit, and so on. main() gets them from the
   runtime first (LOAD), so nothing links libcuda. */
static struct {
    PFN_cuGetErrorName_v6000 GetErrorName;
    PFN_cuGetErrorString_v6000 GetErrorString;
    PFN_cuInit_v2000 Init;
    PFN_cuDeviceGet_v2000 DeviceGet;
    PFN_cuDevicePrimaryCtxRetain_v7000 DevicePrimaryCtxRetain;
    PFN_cuDevicePrimaryCtxRelease_v11000 DevicePrimaryCtxRelease;
    PFN_cuCtxGetCurrent_v4000 CtxGetCurrent;
    PFN_cuCtxSetCurrent_v4000 CtxSetCurrent;
    PFN_cuCtxPushCurrent_v4000 CtxPushCurrent;
    PFN_cuCtxPopCurrent_v4000 CtxPopCurrent;
    PFN_cuMemAlloc_v3020 MemAlloc;
    PFN_cuMemsetD32_v3020 MemsetD32;
    PFN_cuMemcpyDtoH_v3020 MemcpyDtoH;
    PFN_cuMemFree_v3020 MemFree;
} cu;

static void load_at(const char *symbol, void **fn)
{
    check_cuda(cudaGetDriverEntryPointByVersion(symbol, fn, 12000,
                                                cudaEnableDefault, NULL));
    if (*fn == NULL) {
        fprintf(stderr, "%s: not found in the driver\n", symbol);
        exit(CLINIC_EXIT_CUDA_ERROR);
    }
}
#define LOAD(name) load_at("cu" #name, (void **)&cu.name)

/* check_cuda() for CUresult: prints `file:line: call failed: CUDA_ERROR_NAME
   (description)` and exits with CLINIC_EXIT_CUDA_ERROR if the call failed. */
static void check_cu_at(CUresult r, const char *call, const char *file,
                        int line)
{
    const char *name = "?", *text = "?";
    if (r == CUDA_SUCCESS)
        return;
    cu.GetErrorName(r, &name);
    cu.GetErrorString(r, &text);
    fflush(stdout);
    fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", clinic_basename(file),
            line, call, name, text);
    exit(CLINIC_EXIT_CUDA_ERROR);
}
#define check_cu(call) check_cu_at((call), #call, __FILE__, __LINE__)

static CUdevice device; /* device 0, for both threads */

/* Says whether a context is current in the calling thread. */
static void print_current(const char *who)
{
    CUcontext current = NULL;
    check_cu(cu.CtxGetCurrent(&current));
    printf("%s: a context is current: %s\n", who, current ? "yes" : "no");
}

/* Allocates N ints with cuMemAlloc, sets them to 7 with cuMemsetD32, reads
   them back with cuMemcpyDtoH and checks them: all in the current context. */
static size_t use_device(const char *who)
{
    int got[N], want[N];
    CUdeviceptr dev_values = 0;
    for (int i = 0; i < N; i++)
        want[i] = 7;
    check_cu(cu.MemAlloc(&dev_values, sizeof got));
    check_cu(cu.MemsetD32(dev_values, 7, N));
    check_cu(cu.MemcpyDtoH(got, dev_values, sizeof got));
    check_cu(cu.MemFree(dev_values));
    return check_ints(who, got, want, N);
}

/* The second thread: the same work as the main thread. */
static void *worker(void *wrong)
{
    /* BUG: a context is current per thread, and this thread has none: the
       main thread's cuCtxSetCurrent() did not make it current here. */
    print_current("worker thread");
    *(size_t *)wrong = use_device("worker thread");
    return NULL;
}

int main(void)
{
    pthread_t thread;
    CUcontext primary = NULL;
    size_t wrong = 0, worker_wrong = 0;

    require_gpu_or_skip();
    LOAD(GetErrorName); LOAD(GetErrorString); LOAD(Init); LOAD(DeviceGet);
    LOAD(DevicePrimaryCtxRetain); LOAD(DevicePrimaryCtxRelease); LOAD(MemFree);
    LOAD(CtxGetCurrent); LOAD(CtxSetCurrent); LOAD(CtxPushCurrent);
    LOAD(CtxPopCurrent); LOAD(MemAlloc); LOAD(MemsetD32); LOAD(MemcpyDtoH);
    check_cu(cu.Init(0));
    check_cu(cu.DeviceGet(&device, 0));
    check_cu(cu.DevicePrimaryCtxRetain(&primary, device));
    check_cu(cu.CtxSetCurrent(primary));
    print_current("main thread");
    wrong += use_device("main thread");

    if (pthread_create(&thread, NULL, worker, &worker_wrong) != 0 ||
        pthread_join(thread, NULL) != 0) {
        fprintf(stderr, "pthread_create or pthread_join failed\n");
        return CLINIC_EXIT_CUDA_ERROR;
    }
    wrong += worker_wrong;
    check_cu(cu.CtxSetCurrent(NULL));
    check_cu(cu.DevicePrimaryCtxRelease(device));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
