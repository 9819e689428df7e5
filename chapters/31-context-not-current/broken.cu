/**
 * \file broken.cu
 * \brief Chapter 31, broken: the main thread makes the device's primary
 *        context current and uses it through the driver API; a second
 *        thread then calls the driver API without making any context
 *        current, and its first call fails with CUDA_ERROR_INVALID_CONTEXT.
 */
#include <pthread.h>
#include "check_cuda.h"
#include "clinic_driver_api.h" /* cu.MemAlloc is cuMemAlloc, and so on */

#define N 256 /* ints each thread allocates, fills and reads back */

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
    clinic_load_driver_api();
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
