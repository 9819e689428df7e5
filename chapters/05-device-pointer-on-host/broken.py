"""broken.py -- Chapter 05, PyCUDA twin of broken.cu: host code reads a result
through the device address of a mem_alloc() buffer, wrapped as a host buffer by
as_buffer(). That address names GPU memory, so the CPU's load faults with
SIGSEGV."""
import os
import resource
import signal
import struct
import sys
import warnings

import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np  # noqa: E402
import pycuda.autoinit  # noqa: E402,F401  (the context, as users create it)
import pycuda.driver as cuda  # noqa: E402
from pycuda.compiler import SourceModule  # noqa: E402

N = 256

KERNEL = """
/* Writes out[i] = i * i for every i < n. */
__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * i;
}
"""


def host_read(results, index):
    """Reads results[index] on the host. Returns (0, value), or (signal, None)
    when the read raised SIGSEGV or SIGBUS. A fault would kill the Python
    interpreter, so the read runs in a child process made by fork(): an exact
    copy of this one, with the same addresses. The C programs use a signal
    handler instead; Python cannot return from a fault."""
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    with warnings.catch_warnings():
        # Python 3.12 warns that fork() in a process with threads (the CUDA
        # driver's) may deadlock the child. This child makes no CUDA call.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: one read, then exit without any clean-up
        os.close(read_end)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file if it faults
        os.write(write_end, struct.pack("i", int(results[index])))
        os._exit(0)
    os.close(write_end)
    data = os.read(read_end, 4)
    os.close(read_end)
    status = os.waitpid(pid, 0)[1]
    if os.WIFSIGNALED(status):
        return os.WTERMSIG(status), None
    return 0, struct.unpack("i", data)[0]


def run():
    squares = SourceModule(KERNEL).get_function("squares")
    host = np.full(N, -1, dtype=np.int32)  # a marker for "never copied back"
    dev = cuda.mem_alloc(host.nbytes)

    squares(dev, np.int32(N), block=(N, 1, 1), grid=(1, 1))
    # BUG: as_buffer() hands out the device address as if it were host memory.
    # The address is unique in the process's address space, but the CPU has
    # no readable page there.
    results = np.frombuffer(dev.as_buffer(host.nbytes), dtype=np.int32)
    sig, value = host_read(results, 3)
    if sig != 0:
        print("reading results[3] on the host: caught %s, the CPU cannot read this address"
              % signal.Signals(sig).name)
    else:
        print("reading results[3] on the host: got %d, expected %d" % (value, 3 * 3))

    dev.free()
    if sig != 0 or value != 3 * 3:
        return clinic.EXIT_WRONG_RESULT
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
