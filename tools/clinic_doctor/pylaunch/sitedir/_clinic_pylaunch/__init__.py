"""The clinic doctor's launch check, loaded into the examined Python program.

sitecustomize.py (beside this package) calls install() when the doctor has
set CLINIC_TRACE_DIR. From then on, the first import of CuPy, PyCUDA, Numba
or PyTorch by the program (never by this check) wraps that library's kernel
launches (and torch.Tensor.data_ptr), and each launch is written to
CLINIC_TRACE_DIR/py-<pid>.jsonl with its arguments' dtypes, shapes, strides
and devices against the kernel's parameters. An exception that ends the
program and is not CUDA's is written as a pyerror record. See the doctor's
trace format v1 for the records.
"""

import atexit
import os
import sys

from . import hooks, trace, wrappers
from .describe import Memory

CHECK = None  # the Check of this process, once installed

# Exceptions that are CUDA's own (the doctor's other runs explain them):
# their type's module, or words of their message.
_CUDA_MODULES = ("cupy_backends", "cupy.cuda", "pycuda._driver",
                 "pycuda.driver", "numba.cuda.cudadrv",
                 "numba_cuda.numba.cuda.cudadrv", "cuda.bindings",
                 "cuda.cudart", "cuda.cuda")
_CUDA_WORDS = ("CUDA error", "cudaError", "CUDA_ERROR", "cuda_error",
               "CUDA driver", "CUDA out of memory")


def _is_cuda_error(exc_type, value):
    module = getattr(exc_type, "__module__", "") or ""
    if any(module == m or module.startswith(m + ".") for m in _CUDA_MODULES):
        return True
    if exc_type.__name__ in ("AcceleratorError", "OutOfMemoryError",
                             "CudaAPIError", "CudaSupportError",
                             "CUDARuntimeError", "CUDADriverError"):
        return True
    text = str(value)
    return any(w in text for w in _CUDA_WORDS)


def _error_where(tb):
    """file:line of the last frame of the traceback that is the program's
    own (not the standard library's, an installed package's or a compiled
    module's, whose file names are relative), else the last frame."""
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    if not frames:
        return None
    stdlib = os.path.dirname(os.__file__)
    own = [f for f in frames
           if os.path.isabs(f[0]) and not f[0].startswith(stdlib + os.sep)
           and "site-packages" not in f[0] and "dist-packages" not in f[0]
           and not f[0].startswith("<")]
    name, line = (own or frames)[-1]
    try:
        rel = os.path.relpath(name)
        if not rel.startswith(".."):
            name = rel
    except ValueError:
        pass
    return "%s:%d" % (name, line)


def _install_excepthook(tr):
    previous = sys.excepthook

    def excepthook(exc_type, value, tb):
        try:
            if not issubclass(exc_type, (KeyboardInterrupt, SystemExit)) \
                    and not _is_cuda_error(exc_type, value):
                tr.write({"ev": "pyerror", "type": exc_type.__name__,
                          "message": str(value)[:2000],
                          "where": _error_where(tb)})
        except Exception:
            tr.failures += 1
        return previous(exc_type, value, tb)

    sys.excepthook = excepthook


def install(folder):
    """Starts the check for this process (and the children it forks)."""
    global CHECK
    if CHECK is not None:
        return CHECK
    tr = trace.Trace(folder)
    check = wrappers.Check(tr, Memory())
    CHECK = check
    tr.start()

    def on_error():
        tr.failures += 1

    def hook(fn):
        return lambda module: fn(check, module)

    hooks.install({
        "cupy": hook(wrappers.patch_cupy),
        "pycuda.driver": hook(wrappers.patch_pycuda_driver),
        "pycuda.compiler": hook(wrappers.patch_pycuda_compiler),
        "numba.cuda.dispatcher": hook(wrappers.patch_numba),
        "numba.cuda": hook(wrappers.patch_numba_package),
        "numba_cuda.numba.cuda.dispatcher": hook(wrappers.patch_numba),
        "numba_cuda.numba.cuda": hook(wrappers.patch_numba_package),
        "torch": hook(wrappers.patch_torch),
    }, on_error)
    _install_excepthook(tr)
    atexit.register(tr.finish)
    return check
