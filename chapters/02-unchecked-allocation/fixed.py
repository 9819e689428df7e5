"""fixed.py -- Chapter 02, PyCUDA twin of fixed.cu: the exception from
mem_alloc() is left to stop the program, so a request the GPU cannot meet is
reported at the allocation, with the real reason: out of memory."""
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
    # FIX: let the exception stop the program, like every other failing call.
    # When the GPU cannot give 1 TiB, the error names this call and says why:
    # out of memory.
    table = cuda.mem_alloc(table_bytes)
    cuda.memcpy_htod(table, chunk)
    cuda.memcpy_dtoh(back, table)

    if clinic.check_ints("first chunk", back, chunk):
        return clinic.EXIT_WRONG_RESULT
    return clinic.EXIT_OK


sys.exit(clinic.main(run))
