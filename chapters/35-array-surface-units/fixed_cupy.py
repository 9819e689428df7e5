"""fixed_cupy.py -- Chapter 35, CuPy twin of fixed.cu: the RawKernel gives
surf2Dwrite the byte offset of its texel, col * sizeof(float), so every
texel of the CUDA array is written and reads back right."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_cupy_or_skip()

import cupy as cp
import numpy as np
from cupy.cuda import runtime
from cupy.cuda import texture

WIDTH = 8   # floats a row: 32 bytes
HEIGHT = 3  # rows

KERNEL = r"""
/* Writes 10 * (row + 1) + col into texel (col, row) of a CUDA array of
   floats, through its surface object. One thread per texel. */
extern "C" __global__
void fill_array(cudaSurfaceObject_t surf, int width, int height)
{
    int col = threadIdx.x, row = threadIdx.y;
    if (col < width && row < height) {
        float value = 10.0f * (row + 1) + col;
        /* FIX: a surface's x is a BYTE offset into the row: texel col
           starts at byte col * sizeof(float). The row y stays an index. */
        surf2Dwrite(value, surf, col * (int)sizeof(float), row);
    }
}
"""


def run():
    fill_array = cp.RawKernel(KERNEL, "fill_array")
    want = np.array([[10 * (row + 1) + col for col in range(WIDTH)]
                     for row in range(HEIGHT)], dtype=np.int32)

    # One 32-bit float channel: the format of the data copied in; the
    # width and height are in texels, and a surface needs the flag.
    desc = texture.ChannelFormatDescriptor(
        32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
    array = texture.CUDAarray(desc, WIDTH, HEIGHT,
                              flags=runtime.cudaArraySurfaceLoadStore)
    # Zeros first: a texel the kernel misses then reads back as 0.
    array.copy_from(np.zeros((HEIGHT, WIDTH), dtype=np.float32))
    surf = texture.SurfaceObject(texture.ResourceDescriptor(
        runtime.cudaResourceTypeArray, cuArr=array))

    print("a %d x %d CUDA array of floats, written through a surface"
          % (HEIGHT, WIDTH))
    fill_array((1,), (WIDTH, HEIGHT),
               (surf, np.int32(WIDTH), np.int32(HEIGHT)))
    got = np.empty((HEIGHT, WIDTH), dtype=np.float32)
    array.copy_to(got)  # on the current stream, after the kernel
    cp.cuda.get_current_stream().synchronize()

    for row in range(HEIGHT):
        print("row %d: %s" % (row, " ".join("%g" % v for v in got[row])))
    wrong = clinic.check_ints("array", got.astype(np.int32), want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
