"""broken.py -- Chapter 16, PyCUDA twin of broken.cu: a structured dtype
without align=True packs the fields that the kernel's C struct pads, so every
field after the first comes out shifted."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 4  # records

# BUG: without align=True NumPy packs the fields (tag, id, value at bytes 0, 1,
# 5: 9 bytes a record); the compiler pads the struct to 12 bytes (0, 4, 8).
HOST_RECORD = np.dtype([("tag", np.int8), ("id", np.int32),
                        ("value", np.float32)])

KERNEL = r"""
#include <stddef.h>
/* The record as the kernel reads it. The compiler aligns each field to its
   size: tag at byte 0, 3 bytes of padding, id at byte 4, value at byte 8. */
typedef struct {
    char tag;
    int id;
    float value;
} record;
__global__ void record_layout(int *out) /* size, offsets of tag, id, value */
{
    out[0] = (int)sizeof(record);
    out[1] = (int)offsetof(record, tag);
    out[2] = (int)offsetof(record, id);
    out[3] = (int)offsetof(record, value);
}
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
"""


def offset(dtype, field):
    """The byte offset of one field of a structured dtype."""
    return dtype.fields[field][1]


def run():
    module = SourceModule(KERNEL)
    record_layout = module.get_function("record_layout")
    unpack = module.get_function("unpack")

    host = np.zeros(N, dtype=HOST_RECORD)  # padding bytes, if any, are 0
    host["tag"] = np.arange(N) + 1
    host["id"] = 1001 + np.arange(N)
    host["value"] = 0.5 + np.arange(N)

    layout = np.empty(4, dtype=np.int32)
    dev_layout = cuda.mem_alloc(layout.nbytes)
    record_layout(dev_layout, block=(1, 1, 1), grid=(1, 1))
    cuda.memcpy_dtoh(layout, dev_layout)
    host_layout = (HOST_RECORD.itemsize, offset(HOST_RECORD, "tag"),
                   offset(HOST_RECORD, "id"), offset(HOST_RECORD, "value"))
    for who, sizes in (("host record:  ", host_layout),
                       ("kernel record:", layout)):
        print("%s %2d bytes; tag at byte %d, id at byte %d, value at byte %d"
              % ((who,) + tuple(int(x) for x in sizes)))

    # The buffer holds N records as the kernel reads them. It is zeroed first,
    # so any byte the copy does not cover reads as 0 on every run.
    kernel_bytes = N * int(layout[0])
    dev_recs = cuda.mem_alloc(kernel_bytes)
    cuda.memset_d8(dev_recs, 0, kernel_bytes)
    cuda.memcpy_htod(dev_recs, host)  # the structured array's own bytes
    fields = [np.empty(N, dtype=t) for t in (np.int32, np.int32, np.float32)]
    dev_fields = [cuda.mem_alloc(f.nbytes) for f in fields]
    unpack(dev_recs, *dev_fields, np.int32(N), block=(N, 1, 1), grid=(1, 1))
    for field, dev_field in zip(fields, dev_fields):
        cuda.memcpy_dtoh(field, dev_field)
    tags, ids, values = fields

    intact = 0
    for i in range(N):
        wrote = (int(host["tag"][i]), int(host["id"][i]),
                 float(host["value"][i]))
        read = (int(tags[i]), int(ids[i]), float(values[i]))
        print("record %d: host wrote tag %d, id %d, value %g; "
              "kernel read tag %d, id %d, value %g"
              % ((i,) + wrote + read))
        intact += wrote == read
    print("records the kernel read intact: %d of %d" % (intact, N))

    for dev in dev_fields + [dev_recs, dev_layout]:
        dev.free()
    return clinic.EXIT_OK if intact == N else clinic.EXIT_WRONG_RESULT


sys.exit(clinic.main(run))
