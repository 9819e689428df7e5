"""The Numba twin of clinic_wait.cuh: a device function that keeps a Numba
kernel busy for a set time, so that "the kernel is still running" is true on
every run and every GPU (chapters 09 and 23's Numba twins).

Numba has no clock a kernel can read, so this module reads the GPU's
nanosecond timer (`%globaltimer`, wall time whatever the SM clock speed is)
with one line of inline PTX, as clinic_wait.cuh does in C, and keeps it here
so that no lesson has to show it. A twin imports it after
`clinic.require_numba_or_skip()`:

    from clinic_numba import gpu_wait_ns

and calls `gpu_wait_ns(200000000)` in a kernel for a 200 ms wait.
"""
from llvmlite import ir
from numba import cuda, uint64
from numba.cuda import types
from numba.cuda.extending import intrinsic


@intrinsic
def gpu_now_ns(typingctx):
    """Nanoseconds on the GPU's global timer (the same on every SM)."""
    def codegen(context, builder, signature, args):
        read = ir.InlineAsm(ir.FunctionType(ir.IntType(64), []),
                            "mov.u64 $0, %globaltimer;", "=l",
                            side_effect=True)
        return builder.call(read, [])
    return types.uint64(), codegen


@cuda.jit(device=True)
def gpu_wait_ns(ns):
    """Busy-waits ns nanoseconds from now."""
    start = gpu_now_ns()
    while gpu_now_ns() - start < uint64(ns):
        pass
