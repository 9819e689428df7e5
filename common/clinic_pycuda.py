"""The PyCUDA twin of check_cuda.h: the no-GPU skip, the result check and the
exit codes that every chapter's broken.py / fixed.py share with the C programs.

Use it as the first thing a program does, before `import pycuda.autoinit`:

    import clinic_pycuda as clinic
    clinic.require_gpu_or_skip()
    import pycuda.autoinit  # noqa: E402  (creates the context, as users do)
    import pycuda.driver as cuda

and end with `sys.exit(clinic.main(run))`, where run() returns the exit code.
"""
import sys

EXIT_OK = 0            # ran, and the results were right
EXIT_WRONG_RESULT = 1  # ran, but the results were wrong
EXIT_CUDA_ERROR = 2    # a CUDA call failed (PyCUDA raised pycuda.driver.Error)
EXIT_SKIP = 77         # no usable GPU or no PyCUDA: nothing was run


def skip(why):
    """Prints `[SKIPPED] <why>` and exits 77, as the C programs do."""
    print("[SKIPPED] %s" % why, flush=True)
    sys.exit(EXIT_SKIP)


def require_gpu_or_skip():
    """Exits 77 with the reason when PyCUDA, the driver or a device is missing."""
    try:
        import pycuda  # noqa: F401
    except ImportError:
        skip("PyCUDA is not installed for %s (pip install numpy pycuda)" % sys.executable)
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


def error_text(e):
    """`pycuda.driver.LogicError: cuMemcpyDtoH failed: invalid argument`:
    the public module name, the class and the message, the same on every run."""
    module = type(e).__module__
    if module == "pycuda._driver":
        module = "pycuda.driver"
    return "%s.%s: %s" % (module, type(e).__name__, e)


def main(run):
    """Calls run() and returns its exit code. A PyCUDA error that escapes is
    printed to stderr as one line (see error_text) and gives EXIT_CUDA_ERROR,
    the twin of check_cuda() in the C programs."""
    import pycuda.driver as cuda
    try:
        return run()
    except cuda.Error as e:
        sys.stdout.flush()
        print(error_text(e), file=sys.stderr, flush=True)
        return EXIT_CUDA_ERROR


def check_ints(what, got, want):
    """Compares two sequences of ints and prints the same line as check_ints()
    in check_cuda.h. Returns the number of wrong elements."""
    n = len(want)
    wrong = [i for i in range(n) if int(got[i]) != int(want[i])]
    if not wrong:
        print("%s: 0 of %d elements wrong" % (what, n))
    else:
        i = wrong[0]
        print("%s: %d of %d elements wrong, first at [%d]: got %d, expected %d"
              % (what, len(wrong), n, i, int(got[i]), int(want[i])))
    return len(wrong)
