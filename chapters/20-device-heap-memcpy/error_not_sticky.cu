/**
 * \file error_not_sticky.cu
 * \brief Chapter 20, how far the error reaches: broken.cu's mistake, a
 *        device-heap pointer handed to the host, but the program carries on
 *        after cudaMemcpy() refuses it: cudaFree() refuses it too, and the
 *        error is not sticky, since the calls after it succeed.
 */
#include "check_cuda.h"

#define N 256

/* One block of n threads: thread 0 takes an array of n ints from the device
   heap, every thread writes its square into it, and thread 0 hands it on. */
__global__ void squares_on_heap(int **slot, int n)
{
    __shared__ int *scratch;
    int i = threadIdx.x;
    if (i == 0)
        scratch = (int *)malloc(n * sizeof(int));
    __syncthreads(); /* every thread sees scratch */
    if (scratch == NULL)
        return; /* the heap is full (chapter 21) */
    if (i < n)
        scratch[i] = i * i;
    __syncthreads(); /* every square is in scratch */
    if (i == 0) {
        /* BUG: the heap pointer goes to the host as if it were the result
           buffer. Device-heap memory belongs to the kernel side only: no
           runtime or driver API call accepts it, not cudaMemcpy(), not
           cudaFree(). */
        *slot = scratch;
    }
}

/* Gives a device-heap block back to the heap; only device code can. */
__global__ void free_on_heap(int *block)
{
    free(block);
}

static int failed_steps = 0;

/* Prints what one call returned and carries on instead of exiting, so the
   output shows how far the error reaches; main() still exits non-zero. */
static void step(const char *what, cudaError_t err)
{
    printf("%-33s %s\n", what, cudaGetErrorName(err));
    if (err != cudaSuccess)
        failed_steps++;
}

int main(void)
{
    int result[N], want[N];
    int **slot = NULL; /* where the kernel leaves the heap pointer */
    int *heap = NULL, *fresh = NULL;
    size_t size = N * sizeof(int);
    size_t wrong;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++) {
        result[i] = -1; /* a marker: any -1 left over was never copied back */
        want[i] = i * i;
    }

    check_cuda(cudaMalloc((void **)&slot, sizeof *slot));
    squares_on_heap<<<1, N>>>(slot, N);
    check_launch();
    check_cuda(cudaMemcpy(&heap, slot, sizeof heap, cudaMemcpyDeviceToHost));
    printf("heap pointer from the kernel: %s\n",
           heap != NULL ? "not NULL" : "NULL");

    step("cudaMemcpy from the heap pointer",
         cudaMemcpy(result, heap, size, cudaMemcpyDeviceToHost));
    step("cudaFree of the heap pointer", cudaFree(heap));
    step("cudaGetLastError", cudaGetLastError());
    step("cudaGetLastError again", cudaGetLastError());
    step("cudaMalloc of a new buffer", cudaMalloc((void **)&fresh, size));
    step("cudaMemcpy into the new buffer",
         cudaMemcpy(fresh, want, size, cudaMemcpyHostToDevice));
    step("cudaFree of the new buffer", cudaFree(fresh));
    wrong = check_ints("squares", result, want, N);

    /* the heap block lives until device code frees it */
    free_on_heap<<<1, 1>>>(heap);
    check_launch();
    check_cuda(cudaDeviceSynchronize());
    check_cuda(cudaFree(slot));
    if (failed_steps > 0)
        return CLINIC_EXIT_CUDA_ERROR;
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
