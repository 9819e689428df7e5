"""A child made by fork() launches too: it gets its own record file."""
import os

import cupy

k = cupy.RawKernel('extern "C" __global__ void f(float *p) {}', "f")
x = cupy.empty(4, dtype="float64")
pid = os.fork()
if pid == 0:
    k((1,), (1,), (x,))
    os._exit(0)
os.waitpid(pid, 0)
k((1,), (1,), (x,))
print("parent done")
