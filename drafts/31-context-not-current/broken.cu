/**
 * \file broken.cu
 * \brief Chapter 31, broken: the main thread makes the device's primary
 *        context current and uses it through the driver API; a second
 *        thread then calls the driver API without making any context
 *        current, and its first call fails with CUDA_ERROR_INVALID_CONTEXT.
 */
#include <cuda.h>
#include <pthread.h>
#include "check_cuda.h"

#define N 256 /* ints each thread allocates, fills and reads back */

/* Prints `file:line: call failed: CUDA_ERROR_NAME (description)` and exits
   with CLINIC_EXIT_CUDA_ERROR when a driver API call fails: check_cuda()
   for CUresult. */
static void check_cu_at(CUresult r, const char *call, const char *file,
                        int line)
{
    const char *name = "?", *text = "?";
    if (r == CUDA_SUCCESS)
        return;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
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
    check_cu(cuCtxGetCurrent(&current));
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
    check_cu(cuMemAlloc(&dev_values, sizeof got));
    check_cu(cuMemsetD32(dev_values, 7, N));
    check_cu(cuMemcpyDtoH(got, dev_values, sizeof got));
    check_cu(cuMemFree(dev_values));
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
    check_cu(cuInit(0));
    check_cu(cuDeviceGet(&device, 0));
    check_cu(cuDevicePrimaryCtxRetain(&primary, device));
    check_cu(cuCtxSetCurrent(primary));
    print_current("main thread");
    wrong += use_device("main thread");

    if (pthread_create(&thread, NULL, worker, &worker_wrong) != 0 ||
        pthread_join(thread, NULL) != 0) {
        fprintf(stderr, "pthread_create or pthread_join failed\n");
        return CLINIC_EXIT_CUDA_ERROR;
    }
    wrong += worker_wrong;
    check_cu(cuCtxSetCurrent(NULL));
    check_cu(cuDevicePrimaryCtxRelease(device));
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
