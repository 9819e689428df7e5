/**
 * \file fixed.cu
 * \brief Chapter 42, fixed: the object is built on the device, with
 *        placement new in a kernel, so its vtable pointer is the device's
 *        and the kernel's virtual call works.
 */
#include <new> /* FIX: placement new, to build an object in given memory */
#include "check_cuda.h"

#define N 1024

/* An operation on one value. apply() is virtual, so a kernel can be handed
   any operation derived from this one; that makes every object carry a
   hidden pointer to its class's table of virtual functions, the vtable. */
struct op {
    int factor;
    __host__ __device__ op(int f) : factor(f) {}
    __host__ __device__ virtual int apply(int x) const { return x; }
};

/* The operation used here: multiply by factor. */
struct scale : op {
    __host__ __device__ scale(int f) : op(f) {}
    __host__ __device__ int apply(int x) const { return x * factor; }
};

/* Replaces every values[i] with f->apply(values[i]): a virtual call. */
__global__ void apply_all(const op *f, int *values, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        values[i] = f->apply(values[i]);
}

/* FIX: builds a scale at where, on the device (placement new). */
__global__ void make_scale(op *where, int factor)
{
    new (where) scale(factor);
}

static int failed_steps = 0;

/* Prints what one call returned and carries on instead of exiting, so the
   output shows where the error appears and how far it reaches. */
static void step(const char *what, cudaError_t err)
{
    printf("%-30s %s\n", what, cudaGetErrorName(err));
    if (err != cudaSuccess)
        failed_steps++;
}

int main(void)
{
    int host[N], want[N];
    int *values = NULL;
    op *dev_op = NULL;
    int pageable = 0;
    size_t wrong;

    require_gpu_or_skip();
    check_cuda(
        cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0));
    if (pageable) { /* HMM or ATS: the GPU may read host memory here */
        printf("[SKIPPED] this host's GPU can read pageable memory (HMM or "
               "ATS), so the fault cannot be shown here\n");
        return CLINIC_EXIT_SKIP;
    }
    for (int i = 0; i < N; i++) {
        host[i] = i + 1;
        want[i] = 2 * (i + 1);
    }
    check_cuda(cudaMalloc((void **)&values, sizeof host));
    check_cuda(cudaMemcpy(values, host, sizeof host, cudaMemcpyHostToDevice));
    check_cuda(cudaMalloc((void **)&dev_op, sizeof(scale)));

    /* FIX: build the object on the device, so that its vtable pointer is
       the device's: placement new, in a kernel, into dev_op. */
    make_scale<<<1, 1>>>(dev_op, 2);
    check_launch();
    apply_all<<<(N + 255) / 256, 256>>>(dev_op, values, N);
    step("launch (cudaGetLastError)", cudaGetLastError());
    step("cudaDeviceSynchronize", cudaDeviceSynchronize());
    step("cudaMemcpy of the results",
         cudaMemcpy(host, values, sizeof host, cudaMemcpyDeviceToHost));
    wrong = check_ints("apply_all", host, want, N);

    step("cudaFree of the object", cudaFree(dev_op));
    step("cudaFree of the values", cudaFree(values));
    if (failed_steps > 0)
        return CLINIC_EXIT_CUDA_ERROR;
    return wrong ? CLINIC_EXIT_WRONG_RESULT : CLINIC_EXIT_OK;
}
