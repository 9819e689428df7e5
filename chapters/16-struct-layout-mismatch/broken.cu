/**
 * \file broken.cu
 * \brief Chapter 16, broken: the host fills its records with a packed copy of
 *        the struct (#pragma pack(1)), the kernel reads them with the padded
 *        layout the compiler gives the same fields, and every field after the
 *        first comes out shifted.
 */
#include <stddef.h>
#include "check_cuda.h"

#define N 4 /* records */

/* The record as the kernel reads it. The compiler aligns each field to its
   size: tag at byte 0, 3 bytes of padding, id at byte 4, value at byte 8. */
typedef struct {
    char tag;
    int id;
    float value;
} record;

/* BUG: the host's own record, packed as file formats often are (id at byte
   1, 9 bytes a record): the kernel's are 12 bytes apart, fields shifted. */
#pragma pack(push, 1)
typedef struct {
    char tag;
    int id;
    float value;
} host_record;
#pragma pack(pop)

/* Reports the layout the device compiler gave record: size, then the offsets
   of tag, id and value. */
__global__ void record_layout(int *out)
{
    out[0] = (int)sizeof(record);
    out[1] = (int)offsetof(record, tag);
    out[2] = (int)offsetof(record, id);
    out[3] = (int)offsetof(record, value);
}

/* Copies each field of each record into its own array, as the kernel sees
   it. */
__global__ void unpack(const record *recs, int *tags, int *ids, float *values,
                       int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        tags[i] = recs[i].tag;
        ids[i] = recs[i].id;
        values[i] = recs[i].value;
    }
}

int main(void)
{
    host_record host[N];
    int layout[4], tags[N], ids[N];
    float values[N];
    record *dev_recs = NULL;
    int *dev_layout = NULL, *dev_tags = NULL, *dev_ids = NULL;
    float *dev_values = NULL;
    int intact = 0;

    require_gpu_or_skip();
    memset(host, 0, sizeof host); /* padding bytes, if any, are zeros too */
    for (int i = 0; i < N; i++) {
        host[i].tag = (char)(i + 1);
        host[i].id = 1001 + i;
        host[i].value = 0.5f + i;
    }

    check_cuda(cudaMalloc((void **)&dev_layout, sizeof layout));
    record_layout<<<1, 1>>>(dev_layout);
    check_launch();
    check_cuda(
        cudaMemcpy(layout, dev_layout, sizeof layout, cudaMemcpyDeviceToHost));
    printf("host record:   %2zu bytes; tag at byte %zu, id at byte %zu, value "
           "at byte %zu\n",
           sizeof(host_record), offsetof(host_record, tag),
           offsetof(host_record, id), offsetof(host_record, value));
    printf("kernel record: %2d bytes; tag at byte %d, id at byte %d, value at "
           "byte %d\n",
           layout[0], layout[1], layout[2], layout[3]);

    /* The buffer holds N records as the kernel reads them. It is zeroed first,
       so any byte the copy does not cover reads as 0 on every run. */
    check_cuda(cudaMalloc((void **)&dev_recs, N * sizeof(record)));
    check_cuda(cudaMemset(dev_recs, 0, N * sizeof(record)));
    check_cuda(cudaMemcpy(dev_recs, host, sizeof host, cudaMemcpyHostToDevice));
    check_cuda(cudaMalloc((void **)&dev_tags, sizeof tags));
    check_cuda(cudaMalloc((void **)&dev_ids, sizeof ids));
    check_cuda(cudaMalloc((void **)&dev_values, sizeof values));
    unpack<<<1, N>>>(dev_recs, dev_tags, dev_ids, dev_values, N);
    check_launch();
    check_cuda(cudaMemcpy(tags, dev_tags, sizeof tags, cudaMemcpyDeviceToHost));
    check_cuda(cudaMemcpy(ids, dev_ids, sizeof ids, cudaMemcpyDeviceToHost));
    check_cuda(
        cudaMemcpy(values, dev_values, sizeof values, cudaMemcpyDeviceToHost));

    for (int i = 0; i < N; i++) {
        int ok = tags[i] == host[i].tag && ids[i] == host[i].id &&
                 values[i] == host[i].value;
        printf("record %d: host wrote tag %d, id %d, value %g; kernel read tag "
               "%d, id %d, value %g\n",
               i, host[i].tag, host[i].id, host[i].value, tags[i], ids[i],
               values[i]);
        intact += ok;
    }
    printf("records the kernel read intact: %d of %d\n", intact, N);

    check_cuda(cudaFree(dev_values));
    check_cuda(cudaFree(dev_ids));
    check_cuda(cudaFree(dev_tags));
    check_cuda(cudaFree(dev_recs));
    check_cuda(cudaFree(dev_layout));
    return intact == N ? CLINIC_EXIT_OK : CLINIC_EXIT_WRONG_RESULT;
}
