/**
 * \file broken.cu
 * \brief Chapter 39, broken: a kernel's a * b + c compared bit for bit with
 *        the host's. nvcc fuses the GPU's into one multiply-add that rounds
 *        once, the host rounds twice, and some results differ in the last bit.
 */
#include <stdint.h>
#include "check_cuda.h"

#define N 1000 /* inputs in each of the two groups */

/* y[i] = a[i] * b[i] + c[i], the formula the host computes too */
__global__ void mul_add(const float *a, const float *b, const float *c,
                        float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        /* BUG: nvcc contracts a * b + c into one fused multiply-add (its
           default, -fmad=true): the exact product is added to c and rounded
           once, where the host rounds the product, then the sum. */
        y[i] = a[i] * b[i] + c[i];
}

/* The bits of a float, to compare results exactly and print them. */
static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Compares n results bit for bit, prints how many differ, by how many units
   in the last place (ulps) at most, and the first difference. */
static int compare(const char *what, const float *in, const float *gpu,
                   const float *host, int n)
{
    int differ = 0;
    int first = -1;
    uint32_t ulps = 0;
    for (int i = 0; i < n; i++) {
        uint32_t g = bits_of(gpu[i]);
        uint32_t h = bits_of(host[i]);
        uint32_t d = g > h ? g - h : h - g; /* the results here are >= 0 */
        if (d == 0)
            continue;
        differ++;
        ulps = d > ulps ? d : ulps;
        first = first < 0 ? i : first;
    }
    printf("%s: %d of %d differ", what, differ, n);
    if (differ == 0) {
        printf("\n");
        return 0;
    }
    printf(", by at most %u ulp%s\n", (unsigned)ulps, ulps > 1 ? "s" : "");
    printf("  first at [%d]: a = %.9g, b = %.9g, c = %.9g\n", first,
           in[first], in[2 * N + first], in[4 * N + first]);
    printf("  GPU  0x%08x = %.9g\n", (unsigned)bits_of(gpu[first]), gpu[first]);
    printf("  host 0x%08x = %.9g\n", (unsigned)bits_of(host[first]),
           host[first]);
    return differ;
}

int main(void)
{
    /* a, b, c of both groups, 2 * N each, then room for y */
    static float in[8 * N];
    static float gpu[2 * N];
    static float host[2 * N];
    float *dev = NULL;
    int differ = 0;

    require_gpu_or_skip();
    for (int i = 0; i < N; i++) {
        in[i] = 0.001f * i; /* group 1: a, b, c ordinary numbers */
        in[2 * N + i] = 0.3f;
        in[4 * N + i] = 0.5f;
        in[N + i] = (i + 1) * 1e-41f; /* group 2: a subnormal a */
        in[3 * N + i] = 1e30f;
        in[5 * N + i] = 0.0f;
    }
    for (int i = 0; i < 2 * N; i++)
        host[i] = in[i] * in[2 * N + i] + in[4 * N + i];

    check_cuda(cudaMalloc((void **)&dev, sizeof in));
    check_cuda(cudaMemcpy(dev, in, sizeof in, cudaMemcpyHostToDevice));
    mul_add<<<(2 * N + 255) / 256, 256>>>(dev, dev + 2 * N, dev + 4 * N,
                                           dev + 6 * N, 2 * N);
    check_launch();
    check_cuda(cudaMemcpy(gpu, dev + 6 * N, sizeof gpu,
                          cudaMemcpyDeviceToHost));
    check_cuda(cudaFree(dev));

    printf("y = a * b + c on the GPU and on the host, compared bit for bit\n");
    differ += compare("a = 0.001 * i, b = 0.3, c = 0.5", in, gpu, host, N);
    differ += compare("a = (i + 1) * 1e-41 (subnormal), b = 1e30, c = 0",
                      in + N, gpu + N, host + N, N);
    return differ ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
