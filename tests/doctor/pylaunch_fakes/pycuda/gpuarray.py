import numpy
from pycuda import driver


class GPUArray(numpy.ndarray):
    def __init__(self, shape, dt="float64", strides=None):
        super().__init__(shape, dt, strides)
        self.gpudata = driver.DeviceAllocation(self.nbytes)

    def __getitem__(self, cols):
        # only a[:, a:b] of a 2-D array: a view with the rows' stride
        start, stop = cols[1].start, cols[1].stop
        return GPUArray((self.shape[0], stop - start), self.dtype.name,
                        self.strides)


def empty(shape, dtype):
    return GPUArray(shape if isinstance(shape, tuple) else (shape,), dtype)
