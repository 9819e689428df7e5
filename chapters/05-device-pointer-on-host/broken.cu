/**
 * \file broken.cu
 * \brief Chapter 05, broken: host code reads a result through the cudaMalloc()
 *        pointer. That address names GPU memory, so the CPU's load faults
 *        with SIGSEGV.
 */
#include "check_cuda.h"

#define N 256

/* Writes out[i] = i * i for every i < n. */
__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
}

/* Prints the kind of memory CUDA says p points to: a name, never the
   address. */
static void show_kind(const char *what, const void *p)
{
    static const char *names[] = { "cudaMemoryTypeUnregistered",
                                   "cudaMemoryTypeHost", "cudaMemoryTypeDevice",
                                   "cudaMemoryTypeManaged" };
    cudaPointerAttributes attr;

    check_cuda(cudaPointerGetAttributes(&attr, p));
    printf("%-28s %s\n", what,
           (unsigned)attr.type < 4 ? names[attr.type] : "unknown");
}

int main(void)
{
    int host[N];
    int *pageable = NULL, *dev = NULL, *pinned = NULL, *managed = NULL;
    const int *results = NULL;
    int value = 0;

    require_gpu_or_skip();
    /* all -1: a marker for "never copied back" */
    memset(host, 0xff, sizeof host);
    pageable = (int *)checked_malloc(64);
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
       space, but the CPU has no readable page there: the read below faults,
       and the process dies of SIGSEGV. */
    results = dev;
    /* Under the tests stdout is a pipe: flush it, so that what was printed
       survives if the read below kills the program. */
    printf("reading results[3] on the host:");
    fflush(stdout);
    value = results[3];
    printf(" got %d, expected %d\n", value, 3 * 3);

    check_cuda(cudaFree(managed));
    check_cuda(cudaFreeHost(pinned));
    check_cuda(cudaFree(dev));
    free(pageable);
    return value != 3 * 3 ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
