"""broken.py -- Chapter 02, PyCUDA twin of broken.cu: the exception from a
failed mem_alloc() is caught and dropped, so the failure is reported later, by
a copy whose arguments all look right."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda

CHUNK = 1000  # ints in the first chunk of the data set


def run():
    chunk = 3 * np.arange(CHUNK, dtype=np.int32)
    back = np.full(CHUNK, -1, dtype=np.int32)
    # No table yet: 0 is the NULL device address, and copies take addresses.
    table = 0
    table_bytes = 1 << 40  # sized for the whole data set: 1 TiB

    print("table: asking the GPU for %d GiB" % (table_bytes >> 30))
    # BUG: the exception is caught and thrown away. 1 TiB is far more than the
    # GPU has, so mem_alloc() raises, table keeps its 0, and the program
    # carries on as if it had the memory.
    try:
        table = cuda.mem_alloc(table_bytes)
    except cuda.Error:
        pass
    cuda.memcpy_htod(table, chunk)
    cuda.memcpy_dtoh(back, table)

    if clinic.check_ints("first chunk", back, chunk):
        return clinic.EXIT_WRONG_RESULT
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
