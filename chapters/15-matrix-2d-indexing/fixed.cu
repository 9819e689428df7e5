/**
 * \file fixed.cu
 * \brief Chapter 15, fixed: the kernel takes all three dimensions, m x k times
 *        k x n, and uses each where it belongs, so rectangular products come
 *        out right as well as square ones.
 */
#include "check_cuda.h"

/* One thread per element of C: C[row][col] = sum over i of A[row][i] *
   B[i][col]. All three matrices are stored row by row. */
__global__ void matmul(const int *a, const int *b, int *c,
                       int m, int k, int n) /* FIX: and k */
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m && col < n) {
        int sum = 0;
        /* FIX: A is m x k and B is k x n. A row of A holds k elements and the
           dot product has k terms, so k is the loop bound and A's row stride;
           m bounds the rows of C and n is the row length of B and of C. */
        for (int i = 0; i < k; i++)
            sum += a[row * k + i] * b[i * n + col];
        c[row * n + col] = sum;
    }
}

/* Multiplies an m x k matrix A by a k x n matrix B on the GPU, compares the
   m x n result with the host's, prints one line and returns the wrong count. */
static size_t multiply(const char *name, int m, int k, int n)
{
    size_t a_bytes = (size_t)m * k * sizeof(int);
    size_t b_bytes = (size_t)k * n * sizeof(int);
    size_t c_bytes = (size_t)m * n * sizeof(int);
    int *a = (int *)checked_malloc(a_bytes),
        *b = (int *)checked_malloc(b_bytes);
    int *c = (int *)checked_malloc(c_bytes),
        *want = (int *)checked_malloc(c_bytes);
    int *dev_a = NULL, *dev_b = NULL, *dev_c = NULL;
    dim3 block(16, 16);
    /* x: columns, y: rows */
    dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y);
    char what[64];
    size_t wrong;

    for (int i = 0; i < m * k; i++)
        a[i] = i % 7 + 1;
    for (int i = 0; i < k * n; i++)
        b[i] = i % 5 + 1;
    for (int row = 0; row < m; row++) {
        for (int col = 0; col < n; col++) {
            int sum = 0;
            for (int i = 0; i < k; i++)
                sum += a[row * k + i] * b[i * n + col];
            want[row * n + col] = sum;
        }
    }

    check_cuda(cudaMalloc((void **)&dev_a, a_bytes));
    check_cuda(cudaMalloc((void **)&dev_b, b_bytes));
    check_cuda(cudaMalloc((void **)&dev_c, c_bytes));
    check_cuda(cudaMemcpy(dev_a, a, a_bytes, cudaMemcpyHostToDevice));
    check_cuda(cudaMemcpy(dev_b, b, b_bytes, cudaMemcpyHostToDevice));
    /* FIX: all three dimensions */
    matmul<<<grid, block>>>(dev_a, dev_b, dev_c, m, k, n);
    check_launch();
    check_cuda(cudaMemcpy(c, dev_c, c_bytes, cudaMemcpyDeviceToHost));

    snprintf(what, sizeof what, "%s, %dx%d times %dx%d", name, m, k, k, n);
    wrong = check_ints(what, c, want, (size_t)m * n);
    check_cuda(cudaFree(dev_c));
    check_cuda(cudaFree(dev_b));
    check_cuda(cudaFree(dev_a));
    free(want);
    free(c);
    free(b);
    free(a);
    return wrong;
}

int main(void)
{
    size_t wrong = 0;

    require_gpu_or_skip();
    wrong += multiply("square", 4, 4, 4);
    wrong += multiply("rectangular", 3, 5, 4);
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
