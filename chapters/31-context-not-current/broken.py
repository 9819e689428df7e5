"""broken.py -- Chapter 31, PyCUDA twin of broken.cu: pycuda.autoinit makes
its context current in the main thread, and a threading.Thread then calls
PyCUDA without making any context current, so its first call that needs one
fails with CUDA_ERROR_INVALID_CONTEXT."""
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (current in the importing thread only)
import pycuda.driver as cuda

N = 256  # ints each thread allocates, fills and reads back


def print_current(who):
    """Says whether a context is current in the calling thread."""
    current = cuda.Context.get_current()
    print("%s: a context is current: %s"
          % (who, "no" if current is None else "yes"))


def use_device(who):
    """Allocates N ints, sets them to 7, reads them back and checks them:
    all in the context current in the calling thread."""
    got = np.empty(N, dtype=np.int32)
    dev_values = cuda.mem_alloc(got.nbytes)
    cuda.memset_d32(dev_values, 7, N)
    cuda.memcpy_dtoh(got, dev_values)
    dev_values.free()
    return clinic.check_ints(who, got, np.full(N, 7, dtype=np.int32))


def in_thread(work):
    """Runs work() in a new thread, waits for it, and returns what it
    returned, or raises here what it raised (as pthread_join() waits)."""
    outcome = {}

    def target():
        try:
            outcome["result"] = work()
        except Exception as e:
            outcome["error"] = e

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def worker():
    """The second thread: the same work as the main thread."""
    # BUG: a context is current per thread, and this thread has none:
    # pycuda.autoinit made its context current in the main thread only.
    print_current("worker thread")
    return use_device("worker thread")


def run():
    print_current("main thread")
    wrong = use_device("main thread")
    wrong += in_thread(worker)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
