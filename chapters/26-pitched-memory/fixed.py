"""fixed.py -- Chapter 26, PyCUDA twin of fixed.cu: the kernel finds each
row of the pitched matrix at row * pitch bytes from the start, so every row
lands where Memcpy2D reads it back."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_gpu_or_skip()

import numpy as np
import pycuda.autoinit  # noqa: F401 (the context, as users create it)
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

WIDTH = 5   # ints a row: 20 bytes, a multiple of no pitch alignment
HEIGHT = 3  # rows
INT_BYTES = np.dtype(np.int32).itemsize

KERNEL = """
__global__ void fill_matrix(int *base, size_t pitch, int width, int height)
{
    int col = threadIdx.x, row = threadIdx.y;
    if (col < width && row < height) {
        // FIX: step row * pitch BYTES through a char pointer, then index
        // the row in ints.
        int *row_start = (int *)((char *)base + row * pitch);
        row_start[col] = 10 * (row + 1) + col;
    }
}
"""


def run():
    fill_matrix = SourceModule(KERNEL).get_function("fill_matrix")
    row_bytes = WIDTH * INT_BYTES
    rows, cols = np.indices((HEIGHT, WIDTH), dtype=np.int32)
    want = 10 * (rows + 1) + cols
    got = np.empty((HEIGHT, WIDTH), dtype=np.int32)

    # The driver picks the pitch (bytes from one row's start to the next);
    # 4 is the size of the element the kernel reads and writes.
    dev, pitch = cuda.mem_alloc_pitch(row_bytes, HEIGHT, INT_BYTES)
    # Zeros first: a row the kernel misses then reads back as zeros.
    cuda.memset_d2d8(dev, pitch, 0, row_bytes, HEIGHT)
    fill_matrix(dev, np.uintp(pitch), np.int32(WIDTH), np.int32(HEIGHT),
                block=(WIDTH, HEIGHT, 1), grid=(1, 1))
    # Pitches and width in bytes: the host's rows are row_bytes apart.
    copy = cuda.Memcpy2D()
    copy.set_src_device(dev)
    copy.src_pitch = pitch
    copy.set_dst_host(got)
    copy.dst_pitch = row_bytes
    copy.width_in_bytes = row_bytes
    copy.height = HEIGHT
    copy(aligned=True)
    dev.free()

    print("a %d x %d matrix of ints in pitched memory: %d bytes a row, "
          "pitch %s" % (HEIGHT, WIDTH, row_bytes,
                        "larger" if pitch > row_bytes else "the same"))
    for row in range(HEIGHT):
        print("row %d: %s" % (row, " ".join(str(int(v)) for v in got[row])))
    wrong = clinic.check_ints("matrix", got, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
