"""A stand-in for CuPy: arrays on a device, RawKernel and RawModule."""

from cupy import cuda  # noqa: F401
from cupy._raw import RawKernel, RawModule  # noqa: F401
import numpy

launched = []  # (kernel name, number of arguments) of each launch


class _Device:
    def __init__(self, id):
        self.id = id


class ndarray(numpy.ndarray):
    def __init__(self, shape, dt="float64", strides=None, order="C",
                 device=None):
        super().__init__(shape, dt, strides, order)
        self.device = _Device(cuda.runtime.getDevice()
                              if device is None else device)

    @property
    def T(self):
        return ndarray(tuple(reversed(self.shape)), self.dtype.name,
                       tuple(reversed(self.strides)), device=self.device.id)


def empty(shape, dtype="float64", order="C"):
    return ndarray(shape if isinstance(shape, tuple) else (shape,),
                   getattr(dtype, "_name", dtype), order=order)
