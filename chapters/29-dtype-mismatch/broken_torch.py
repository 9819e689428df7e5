"""broken_torch.py -- Chapter 29, PyTorch twin of broken.cu: a tensor made
from a NumPy array keeps its float64 dtype, and its data_ptr() is handed to
a raw kernel whose parameter is float *, so the kernel reads halves of
doubles."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "common"))
import clinic_pycuda as clinic

clinic.require_torch_or_skip()
clinic.require_cupy_or_skip()  # the raw kernel is a CuPy RawKernel

import cupy as cp
import numpy as np
import torch

N = 8         # values
FACTOR = 2.0  # passed as np.float32, the kernel's type

KERNEL = r"""
/* out[i] = factor * in[i] for every i < n; in and out hold floats. */
extern "C" __global__
void scale(float factor, const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = factor * in[i];
}
"""


def check_floats(what, got, want):
    """check_floats() of the C programs: prints one line, returns the count."""
    wrong = np.flatnonzero(got != want)
    if wrong.size == 0:
        print("%s: 0 of %d elements wrong" % (what, want.size))
    else:
        i = int(wrong[0])
        print("%s: %d of %d elements wrong, first at [%d]: got %g, "
              "expected %g" % (what, wrong.size, want.size, i, got[i],
                               want[i]))
    return int(wrong.size)


def run_scale(scale, values):
    """Runs scale on the tensor values, in PyTorch's current stream, and
    returns the N floats it wrote as a NumPy array."""
    out = torch.empty(N, dtype=torch.float32, device="cuda")
    stream = torch.cuda.current_stream()
    with cp.cuda.Stream.from_external(stream):
        scale((1,), (N,), (np.float32(FACTOR), values.data_ptr(),
                           out.data_ptr(), np.int32(N)))
    return out.cpu().numpy()  # copies after the kernel, in its stream


def run():
    scale = cp.RawKernel(KERNEL, "scale")
    host = np.arange(1, N + 1, dtype=float)  # float means float64
    values = torch.from_numpy(host).to("cuda")  # keeps NumPy's float64
    want = (FACTOR * host).astype(np.float32)
    print("%d values from 1 to %d, held as double; the kernel reads float "
          "and multiplies by %g" % (N, N, FACTOR))

    # BUG: values is float64 (8 bytes each), the kernel reads float (4):
    # data_ptr() is only an address, and the kernel checks no types.
    out = run_scale(scale, values)
    print("out: %s" % " ".join("%g" % v for v in out))
    wrong = check_floats("out", out, want)
    return clinic.EXIT_WRONG_RESULT if wrong else clinic.EXIT_OK


sys.exit(clinic.main(run))
