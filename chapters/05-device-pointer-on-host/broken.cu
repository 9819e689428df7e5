/**
 * \file broken.cu
 * \brief Chapter 05, broken: host code reads a result through the cudaMalloc()
 *        pointer. That address names GPU memory, so the CPU's load faults
 *        with SIGSEGV.
 */
#include <setjmp.h>
#include <signal.h>
#include "check_cuda.h"

#define N 256

/* Writes out[i] = i * i for every i < n. */
__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
}

static sigjmp_buf fault_jump;
static volatile sig_atomic_t fault_signal;

/* Replaces the default action (killing the process): note the signal and
   jump back into host_read(), so the program can report the fault itself. */
static void on_fault(int sig)
{
    fault_signal = sig;
    siglongjmp(fault_jump, 1);
}

/* Reads *p on the host. Returns 0, or the signal (SIGSEGV, SIGBUS) the read raised. */
static int host_read(const int *p, int *value)
{
    void (*old_segv)(int) = signal(SIGSEGV, on_fault);
    void (*old_bus)(int) = signal(SIGBUS, on_fault);

    fault_signal = 0;
    if (sigsetjmp(fault_jump, 1) == 0)
        *value = *(const volatile int *)p;
    signal(SIGSEGV, old_segv);
    signal(SIGBUS, old_bus);
    return fault_signal;
}

/* Prints the kind of memory CUDA says p points to: a name, never the address. */
static void show_kind(const char *what, const void *p)
{
    static const char *names[] = {"cudaMemoryTypeUnregistered", "cudaMemoryTypeHost",
                                  "cudaMemoryTypeDevice", "cudaMemoryTypeManaged"};
    cudaPointerAttributes attr;

    check_cuda(cudaPointerGetAttributes(&attr, p));
    printf("%-28s %s\n", what, (unsigned)attr.type < 4 ? names[attr.type] : "unknown");
}

int main(void)
{
    int host[N];
    int *pageable = NULL, *dev = NULL, *pinned = NULL, *managed = NULL;
    const int *results = NULL;
    int value = 0, sig;

    require_gpu_or_skip();
    memset(host, 0xff, sizeof host); /* all -1: a marker for "never copied back" */
    pageable = (int *)malloc(64);
    check_cuda(cudaMalloc((void **)&dev, N * sizeof(int)));
    check_cuda(cudaMallocHost((void **)&pinned, 64));
    check_cuda(cudaMallocManaged((void **)&managed, 64));
    show_kind("pageable (malloc)", pageable);
    show_kind("dev (cudaMalloc)", dev);
    show_kind("pinned (cudaMallocHost)", pinned);
    show_kind("managed (cudaMallocManaged)", managed);

    squares<<<1, N>>>(dev, N);
    check_launch();
    /* BUG: dev is a device address. It is unique in the process's address
       space, but the CPU has no readable page there. */
    results = dev;
    sig = host_read(&results[3], &value);
    if (sig != 0)
        printf("reading results[3] on the host: caught %s, the CPU cannot read this address\n",
               sig == SIGSEGV ? "SIGSEGV" : "SIGBUS");
    else
        printf("reading results[3] on the host: got %d, expected %d\n", value, 3 * 3);

    check_cuda(cudaFree(managed));
    check_cuda(cudaFreeHost(pinned));
    check_cuda(cudaFree(dev));
    free(pageable);
    return (sig != 0 || value != 3 * 3) ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
