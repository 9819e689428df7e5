/**
 * \file broken.cu
 * \brief Chapter 13, broken: the grid is rounded up but the kernel has no
 *        bounds check, so the spare threads of the last block write past the
 *        end of array a: over array b, which follows a in the same
 *        allocation, and then past the end of the allocation.
 */
#include "check_cuda.h"

#define N_A 1000  /* elements of a: not a multiple of BLOCK */
#define N_B 8     /* elements of b, stored right after a */
#define BLOCK 256 /* threads per block */

/* Writes out[i] = i * i, meant for every i < n. */
__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    /* BUG: no if (i < n). The grid has 1024 threads for 1000 elements, so
       threads 1000 to 1023 write out[1000] to out[1023]: past the end of a. */
    out[i] = i * i;
}

/* Prints "<what>: v0 v1 ..." for the n values. */
static void print_values(const char *what, const int *values, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++)
        printf(" %d", values[i]);
    printf("\n");
}

int main(void)
{
    int a[N_A], want_a[N_A], b[N_B], want_b[N_B];
    int *base = NULL, *dev_a, *dev_b;
    int blocks = (N_A + BLOCK - 1) / BLOCK; /* rounded up: 4 blocks */

    require_gpu_or_skip();
    for (int i = 0; i < N_A; i++)
        want_a[i] = i * i;
    for (int k = 0; k < N_B; k++)
        want_b[k] = k + 1; /* b holds 1 2 ... 8, and nothing should change it */

    /* One allocation carved into two arrays, as memory pools and packed
       buffers do: a is its first N_A ints, b the N_B ints right after. The
       allocation ends where b ends, 4032 bytes from its start. */
    check_cuda(cudaMalloc((void **)&base, (N_A + N_B) * sizeof(int)));
    dev_a = base;
    dev_b = base + N_A;
    check_cuda(
        cudaMemcpy(dev_b, want_b, sizeof want_b, cudaMemcpyHostToDevice));

    printf("one allocation of %d ints: a is the first %d, b the last %d\n",
           N_A + N_B, N_A, N_B);
    printf(
        "grid: %d blocks of %d threads = %d threads for the %d elements of a\n",
        blocks, BLOCK, blocks * BLOCK, N_A);
    print_values("b before the kernel", want_b, N_B);
    squares<<<blocks, BLOCK>>>(dev_a, N_A);
    check_launch();
    check_cuda(cudaMemcpy(a, dev_a, sizeof a, cudaMemcpyDeviceToHost));
    check_cuda(cudaMemcpy(b, dev_b, sizeof b, cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(base));
    print_values("b after the kernel", b, N_B);

    /* a is checked first: it is the array everyone looks at. */
    size_t wrong = check_ints("a", a, want_a, N_A);
    wrong += check_ints("b", b, want_b, N_B);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
