"""q003_device_function_structs.py -- Seed question 003 (calling a __device__
function from a __global__ one in PyCUDA), its code run: the call itself,
get_function() on a __device__ function, cuda.In() for a scalar, and example
3's get_ptr(), dtype='V2f', astype(numpy.uint8) and struct layout.

Prints one line per claim, `claim: <claim> -> <verdict>: <what happened>`, and
exits 0 when every line shows what this program expects, 1 otherwise.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

N = 1024        # example 1's vectors and example 3's points
READINGS = 64   # structs with padding
READING_BYTES = 8  # sizeof(struct Reading) in C: 1 + 3 bytes of padding + 4

KERNELS = """
/* A __device__ helper: callable from kernels, not from the host. */
__device__ float add_pair(float x, float y)
{
    return x + y;
}

/* Example 1's kernel, c[i] = a[i] + b[i], the addition done by the helper. */
__global__ void add(const float *a, const float *b, float *c, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n)
        c[i] = add_pair(a[i], b[i]);
}

/* Example 3's struct and kernel. */
struct Point {
    float x;
    float y;
};

__global__ void processPoints(Point *points, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) {
        points[i].x *= 2.0f;
        points[i].y += 1.0f;
    }
}

/* A struct with padding: the compiler puts value at offset 4, not 1. */
struct Reading {
    char flag;
    int value;
};

/* Copies the value field of each struct into values[i]. */
__global__ void read_values(const Reading *readings, int *values, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n)
        values[i] = readings[i].value;
}
"""


def grid_for(n):
    return ((n + 255) // 256, 1)


def device_function_call(module):
    """Example 1, with n passed as np.int32 and the kernel calling a
    __device__ function."""
    add = module.get_function("add")
    a_h = np.arange(N, dtype=np.float32)
    b_h = 0.5 * np.arange(N, dtype=np.float32)
    a_d = cuda.mem_alloc(a_h.nbytes)
    b_d = cuda.mem_alloc(b_h.nbytes)
    c_d = cuda.mem_alloc(a_h.nbytes)
    cuda.memcpy_htod(a_d, a_h)
    cuda.memcpy_htod(b_d, b_h)
    add(a_d, b_d, c_d, np.int32(N), block=(256, 1, 1), grid=grid_for(N))
    c_h = np.empty(N, dtype=np.float32)
    cuda.memcpy_dtoh(c_h, c_d)
    wrong = clinic.count_wrong(c_h, a_h + b_h)
    clinic.claim("a __global__ function cannot call a __device__ function "
                 "directly (seed 003)",
                 "false",
                 "the kernel add called the __device__ function add_pair; "
                 "%d of %d elements wrong" % (wrong, N),
                 wrong == 0)


def get_device_function(module):
    """Fetching the __device__ helper from Python, as if it were a kernel."""
    raised = None
    try:
        module.get_function("add_pair")
    except cuda.Error as e:
        raised = e
    clinic.claim("Module.get_function() fetches a __device__ function for "
                 "the host to launch (seed 003)",
                 "false",
                 "get_function(\"add_pair\") raised %s"
                 % clinic.outcome(raised),
                 isinstance(raised, cuda.Error))


def in_for_a_scalar(module):
    """Examples 1 to 3 pass their int sizes as cuda.In(n)."""
    add = module.get_function("add")
    a_d = cuda.mem_alloc(N * 4)
    b_d = cuda.mem_alloc(N * 4)
    c_d = cuda.mem_alloc(N * 4)
    n = N
    raised = None
    try:
        add(a_d, b_d, c_d, cuda.In(n), block=(256, 1, 1), grid=grid_for(n))
    except TypeError as e:
        raised = e
    clinic.claim("cuda.In(n) passes the int n to the kernel "
                 "(seed 003, examples 1 to 3)",
                 "false",
                 "the launch raised %s; np.int32(n) passes it by value"
                 % clinic.outcome(raised),
                 isinstance(raised, TypeError))


def get_ptr():
    """Example 3's points_d.get_ptr(), 'to get the aligned pointer'."""
    points_d = cuda.mem_alloc(N * 8)
    raised = None
    try:
        points_d.get_ptr()
    except AttributeError as e:
        raised = e
    misalignment = int(points_d) % 256
    clinic.claim("get_ptr() gives a DeviceAllocation's aligned pointer "
                 "(seed 003, example 3)",
                 "false",
                 "%s; mem_alloc memory is already aligned: "
                 "int(points_d) %% 256 = %d"
                 % (clinic.outcome(raised), misalignment),
                 isinstance(raised, AttributeError) and misalignment == 0)


def v2f_dtype():
    """Example 3's result array, pagelocked_empty(n, dtype='V2f')."""
    raised = None
    try:
        cuda.pagelocked_empty(N, dtype="V2f")
    except TypeError as e:
        raised = e
    clinic.claim("dtype='V2f' is a NumPy type for a struct of two floats "
                 "(seed 003, example 3)",
                 "false",
                 "pagelocked_empty(n, dtype='V2f') raised %s"
                 % clinic.outcome(raised),
                 isinstance(raised, TypeError))


def points_host():
    points_h = np.zeros(N, dtype=[("x", np.float32), ("y", np.float32)])
    points_h["x"] = 0.5 * np.arange(N)
    points_h["y"] = 0.25 * np.arange(N)
    return points_h


def astype_uint8():
    """Example 3's points_h.astype(numpy.uint8).tobytes(), 'to bytes for
    transfer'."""
    raised = None
    try:
        points_host().astype(np.uint8).tobytes()
    except TypeError as e:
        raised = e
    clinic.claim("points_h.astype(numpy.uint8).tobytes() turns a structured "
                 "array into its bytes (seed 003, example 3)",
                 "false",
                 "astype raised %s" % clinic.outcome(raised),
                 isinstance(raised, TypeError))


def structured_copy(module):
    """Example 3 as it can run: the structured array copied as it is."""
    process_points = module.get_function("processPoints")
    points_h = points_host()
    want_x = points_h["x"] * np.float32(2)
    want_y = points_h["y"] + np.float32(1)
    points_d = cuda.mem_alloc(points_h.nbytes)
    cuda.memcpy_htod(points_d, points_h)
    process_points(points_d, np.int32(N), block=(256, 1, 1), grid=grid_for(N))
    cuda.memcpy_dtoh(points_h, points_d)
    wrong = int(np.count_nonzero((points_h["x"] != want_x)
                                 | (points_h["y"] != want_y)))
    clinic.claim("a structured array must be converted to bytes before "
                 "memcpy_htod (seed 003, example 3)",
                 "false",
                 "memcpy_htod(points_d, points_h) copied the structured array "
                 "as it is; processPoints left %d of %d points wrong"
                 % (wrong, N),
                 wrong == 0)


def point_layout():
    """struct Point {float x; float y;} against NumPy's packed and aligned
    dtypes."""
    fields = [("x", np.float32), ("y", np.float32)]
    packed = np.dtype(fields)
    aligned = np.dtype(fields, align=True)
    clinic.claim("struct Point needs alignment handling between host and "
                 "device (seed 003, example 3)",
                 "false",
                 "it has no padding: the packed and the align=True dtype "
                 "agree (itemsize %d and %d, y at offset %d and %d)"
                 % (packed.itemsize, aligned.itemsize,
                    packed.fields["y"][1], aligned.fields["y"][1]),
                 packed.itemsize == aligned.itemsize == 8
                 and packed.fields["y"][1] == aligned.fields["y"][1] == 4)


def values_read_by_kernel(read_values, readings_h):
    """Copies readings_h into a buffer sized for READINGS C structs and
    returns what the kernel finds in their value fields."""
    readings_d = cuda.mem_alloc(READINGS * READING_BYTES)
    # The same bytes on every run:
    cuda.memset_d8(readings_d, 0, READINGS * READING_BYTES)
    cuda.memcpy_htod(readings_d, readings_h)  # copies readings_h.nbytes
    values_d = cuda.mem_alloc(READINGS * 4)
    read_values(readings_d, values_d, np.int32(READINGS),
                block=(READINGS, 1, 1), grid=(1, 1))
    values = np.empty(READINGS, dtype=np.int32)
    cuda.memcpy_dtoh(values, values_d)
    return values


def padded_struct(module):
    """struct Reading {char flag; int value;} built on the host with and
    without align=True."""
    read_values = module.get_function("read_values")
    want = 1000 + np.arange(READINGS, dtype=np.int32)
    wrong = {}
    for name, align in (("packed", False), ("aligned", True)):
        dtype = np.dtype([("flag", np.int8), ("value", np.int32)], align=align)
        readings_h = np.zeros(READINGS, dtype=dtype)
        readings_h["flag"] = 1
        readings_h["value"] = want
        values = values_read_by_kernel(read_values, readings_h)
        wrong[name] = (clinic.count_wrong(values, want), dtype.itemsize,
                       dtype.fields["value"][1])
    clinic.claim("a NumPy structured dtype lays out its fields as the C "
                 "struct does (seed 002, example 3; seed 003, example 3)",
                 "false without align=True",
                 "for struct {char flag; int value;} the packed dtype "
                 "(itemsize %d, value at offset %d) gave %d of %d values "
                 "wrong; align=True (itemsize %d, value at offset %d) gave "
                 "%d wrong"
                 % (wrong["packed"][1], wrong["packed"][2],
                    wrong["packed"][0], READINGS, wrong["aligned"][1],
                    wrong["aligned"][2], wrong["aligned"][0]),
                 wrong["packed"][0] == READINGS and wrong["aligned"][0] == 0)


def run():
    module = SourceModule(KERNELS)
    device_function_call(module)
    get_device_function(module)
    in_for_a_scalar(module)
    get_ptr()
    v2f_dtype()
    astype_uint8()
    structured_copy(module)
    point_layout()
    padded_struct(module)
    return clinic.claims_exit_code()


sys.exit(clinic.main(run))
