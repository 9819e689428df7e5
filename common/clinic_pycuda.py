"""The PyCUDA twin of check_cuda.h: the no-GPU skip, the result check and the
exit codes that every chapter's broken.py / fixed.py share with the C programs,
and the claim lines of the seed programs.

A twin finds this file from its own place, then skips before PyCUDA is
imported when there is nothing to run on:

    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
    import clinic_pycuda as clinic

    clinic.require_gpu_or_skip()
    import pycuda.autoinit  # creates the context, as users do
    import pycuda.driver as cuda

and ends with `sys.exit(clinic.main(run))`, where run() returns the exit code.
A CuPy twin (broken_cupy.py, fixed_cupy.py) does the same with
`clinic.require_cupy_or_skip()` and then `import cupy`; a PyTorch twin
(broken_torch.py, fixed_torch.py) with `clinic.require_torch_or_skip()`,
a Numba twin (broken_numba.py, fixed_numba.py) with
`clinic.require_numba_or_skip()`.
A kernel that must wait on the GPU includes this folder's clinic_wait.cuh:
`SourceModule(source, include_dirs=[clinic.COMMON])`.
"""
import os
import sys
from pathlib import Path

COMMON = str(Path(__file__).resolve().parent)  # this folder, for #include

EXIT_OK = 0            # ran, and the results were right
EXIT_WRONG_RESULT = 1  # ran, but the results were wrong
EXIT_CUDA_ERROR = 2    # a CUDA call failed (PyCUDA raised pycuda.driver.Error)
EXIT_SKIP = 77         # no usable GPU or no PyCUDA: nothing was run


def skip(why):
    """Prints `[SKIPPED] <why>` and exits 77, as the C programs do."""
    print("[SKIPPED] %s" % why, flush=True)
    sys.exit(EXIT_SKIP)


def require_gpu_or_skip():
    """Exits 77 with the reason when PyCUDA, the driver or a device is
    missing."""
    try:
        import numpy  # noqa: F401
        import pycuda  # noqa: F401
    except ImportError:
        skip("PyCUDA and numpy are not installed for %s "
             "(pip install numpy pycuda)" % sys.executable)
    try:
        import pycuda.driver as cuda
    except ImportError as e:  # pycuda._driver links libcuda.so.1, the driver
        skip("PyCUDA cannot load the NVIDIA driver: %s" % e)
    try:
        cuda.init()
        count = cuda.Device.count()
    except cuda.Error as e:
        skip("cuInit failed: %s" % e)
    if count == 0:
        skip("the driver sees no CUDA device")


def require_gpus_or_skip(needed):
    """require_gpus_or_skip() of check_cuda.h, with the same words: skips as
    require_gpu_or_skip() does without a usable GPU, and with fewer than
    `needed` devices prints `[SKIPPED] this test needs 2 GPUs, the host has
    1` (the harness counts that skip as a missing `multigpu`)."""
    require_gpu_or_skip()
    import pycuda.driver as cuda
    skip_if_fewer(needed, cuda.Device.count())


def skip_if_fewer(needed, count):
    """Exits 77 with require_gpus_or_skip()'s words when count, the GPUs
    a library sees, is below needed."""
    if count < needed:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        skip("this test needs %d GPUs, the host has %d%s" % (
            needed, count, "" if visible is None
            else ' visible (CUDA_VISIBLE_DEVICES is "%s")' % visible))


def one_line(e):
    """An exception's message on one line, as a skip line must be."""
    return " ".join(str(e).split())


def import_or_skip(module, name, pip):
    """<module>, imported; exits 77 with `<name> is not installed for ...`
    or `<name> cannot be imported: ...` when it cannot be, the words the
    harness counts as the library missing (tests/drivers/clinic_driver.py)."""
    import importlib
    import importlib.util
    if importlib.util.find_spec(module.split(".")[0]) is None:
        skip("%s is not installed for %s (pip install %s)"
             % (name, sys.executable, pip))
    try:
        return importlib.import_module(module)
    except Exception as e:  # a broken install, a CUDA library missing
        skip("%s cannot be imported: %s" % (name, one_line(e)))


def require_cupy_or_skip(needed=1):
    """The CuPy twins' require_gpu_or_skip(): exits 77 with the reason when
    CuPy, the driver or a device is missing. The harness counts the first two
    reasons as a missing `cupy`, the others as a missing GPU. With needed > 1
    it is require_gpus_or_skip(needed) too (skip_if_fewer)."""
    cupy = import_or_skip("cupy", "CuPy", "cupy-cuda13x")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # no driver, a driver too old, no device
        skip("cudaGetDeviceCount failed (CuPy): %s" % one_line(e))
    if count == 0:
        skip("the driver sees no CUDA device")
    skip_if_fewer(needed, count)


def require_torch_or_skip():
    """The PyTorch twins' require_gpu_or_skip() (broken_torch.py,
    fixed_torch.py): exits 77 when PyTorch or a CUDA device is missing."""
    torch = import_or_skip("torch", "PyTorch", "torch")
    if not torch.cuda.is_available():
        skip("PyTorch sees no CUDA device (torch.cuda.is_available() is "
             "False)")


def require_numba_or_skip():
    """The Numba twins' require_gpu_or_skip() (broken_numba.py,
    fixed_numba.py): exits 77 when Numba's CUDA target or a device is
    missing. numba 0.68 fails to import with numpy 2.5 (no np.row_stack):
    requirements.txt pins a numpy it imports with."""
    # The lessons' grids are small on purpose: Numba's warning that they
    # leave the GPU idle would be noise in every record.
    os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
    cuda = import_or_skip("numba.cuda", "Numba", "-r requirements.txt")
    if not cuda.is_available():
        skip("Numba sees no CUDA device (numba.cuda.is_available() is "
             "False)")


def cuda_errors():
    """The classes of a failed CUDA call in the libraries this twin
    imported: pycuda.driver.Error, CuPy's CUDARuntimeError and
    CUDADriverError, Numba's CudaAPIError and the CUDAError of cuda.core,
    through which numba-cuda launches kernels."""
    found = []
    if "numba.cuda.cudadrv.driver" in sys.modules:
        found.append(sys.modules["numba.cuda.cudadrv.driver"].CudaAPIError)
    if "cuda.core._utils.cuda_utils" in sys.modules:  # Numba's launches
        found.append(sys.modules["cuda.core._utils.cuda_utils"].CUDAError)
    if "pycuda.driver" in sys.modules:
        found.append(sys.modules["pycuda.driver"].Error)
    if "cupy" in sys.modules:
        cuda = sys.modules["cupy"].cuda
        found += [cuda.runtime.CUDARuntimeError, cuda.driver.CUDADriverError]
    return tuple(found)


def cuda_error_name(description):
    """The name of the CUDA error that the driver describes in these words,
    `CUDA_ERROR_INVALID_VALUE` for `invalid argument`, asked of the driver
    itself (cuGetErrorString, cuGetErrorName); None if no error has them."""
    import ctypes
    driver = ctypes.CDLL("libcuda.so.1")
    text = ctypes.c_char_p()
    for code in range(1000):  # every CUresult is below 1000
        if (driver.cuGetErrorString(code, ctypes.byref(text)) == 0
                and text.value.decode() == description):
            driver.cuGetErrorName(code, ctypes.byref(text))
            return text.value.decode()
    return None


def error_text(e):
    """What a lesson needs from an exception, in words that no PyCUDA or NumPy
    version changes. A CUDA error gives the class, the driver call and the
    CUDA error, as check_cuda() prints it in C:
    `pycuda.driver.LogicError: cuMemcpyDtoH failed: CUDA_ERROR_INVALID_VALUE
    (invalid argument)`. Any other exception gives the built-in class it
    derives from, such as `TypeError`: the messages of Boost.Python and NumPy
    are worded anew from one version to the next. A CuPy or Numba CUDA error
    gives its class and message: `CUDARuntimeError: cudaErrorInvalidValue:
    ...`, `CudaAPIError: [700] Call to cuMemcpyDtoH results in ...`."""
    cuda = sys.modules.get("pycuda.driver")
    if cuda is not None and isinstance(e, cuda.Error):
        kind = "pycuda.driver.%s" % type(e).__name__
        call, failed, description = str(e).partition(" failed: ")
        name = cuda_error_name(description) if failed else None
        if name is None:
            return "%s: %s" % (kind, e)
        return "%s: %s failed: %s (%s)" % (kind, call, name, description)
    numba_text = numba_error_text(e)
    if numba_text:
        return numba_text
    if isinstance(e, cuda_errors()):
        return "%s: %s" % (type(e).__name__, one_line(e))
    for cls in type(e).__mro__:
        if cls.__module__ == "builtins":
            return cls.__name__
    return type(e).__name__


def numba_error_text(e):
    """A Numba CUDA error in the words check_cuda() uses, or None:
    `CudaAPIError: cuMemcpyDtoH failed: CUDA_ERROR_ILLEGAL_ADDRESS (an
    illegal memory access was encountered)`, whatever the bindings print for
    the code (`[700]` or `[<CUresult.CUDA_ERROR_ILLEGAL_ADDRESS: 700>]`).
    cuda.core's CUDAError, which a launch raises, gives its error's name."""
    import re
    kind = type(e).__name__
    if kind == "CUDAError" and type(e).__module__.startswith("cuda.core"):
        return "CUDAError: %s" % one_line(e).split(":")[0]
    if kind != "CudaAPIError" or not hasattr(e, "code"):
        return None
    m = re.search(r"Call to (\w+) results in (\w+)", str(e))
    if m is None:
        return None
    import ctypes
    text = ctypes.c_char_p()
    try:
        driver = ctypes.CDLL("libcuda.so.1")
        if driver.cuGetErrorString(int(e.code), ctypes.byref(text)) != 0:
            text.value = None
    except (OSError, TypeError, ValueError):
        text.value = None
    words = " (%s)" % text.value.decode() if text.value else ""
    return "CudaAPIError: %s failed: %s%s" % (m.group(1), m.group(2), words)


def outcome(e):
    """`no error` when e is None, else error_text(e): what a call raised."""
    return "no error" if e is None else error_text(e)


def main(run):
    """Calls run() and returns its exit code. A PyCUDA, CuPy or Numba CUDA
    error that escapes is printed to stderr as one line (see error_text) and
    gives EXIT_CUDA_ERROR, the twin of check_cuda() in the C programs."""
    try:
        return run()
    except cuda_errors() as e:  # evaluated when run() raises
        sys.stdout.flush()
        print(error_text(e), file=sys.stderr, flush=True)
        return EXIT_CUDA_ERROR


def check_ints(what, got, want):
    """Compares two arrays of ints and prints the same line as check_ints()
    in check_cuda.h. Returns the number of wrong elements."""
    import numpy as np
    got, want = np.ravel(got), np.ravel(want)
    wrong = np.flatnonzero(got != want)
    if wrong.size == 0:
        print("%s: 0 of %d elements wrong" % (what, want.size))
    else:
        i = int(wrong[0])
        print("%s: %d of %d elements wrong, first at [%d]: got %d, expected %d"
              % (what, wrong.size, want.size, i, int(got[i]), int(want[i])))
    return int(wrong.size)


def count_wrong(got, want):
    """How many elements of got differ from want."""
    import numpy as np
    return int(np.count_nonzero(np.ravel(got) != np.ravel(want)))


# The seed programs print one line per claim; claims_exit_code() is 1 when
# any of them showed something the program did not expect.
unexpected_claims = []


def claim(text, verdict, observed, as_expected):
    """Prints `claim: <text> -> <verdict>: <observed>`. The verdict is printed
    only when the run showed what the program expects; otherwise the line
    says `unexpected`."""
    if not as_expected:
        verdict = "unexpected"
        unexpected_claims.append(text)
    print("claim: %s -> %s: %s" % (text, verdict, observed))


def claims_exit_code():
    """EXIT_OK when every claim line showed what its program expects."""
    return EXIT_WRONG_RESULT if unexpected_claims else EXIT_OK
