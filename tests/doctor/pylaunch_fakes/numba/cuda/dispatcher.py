import numpy


class Array:
    """numba.types.Array(dtype, 1, 'A'), spelt as Numba prints it."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.ndim = 1
        self.layout = "A"

    def __str__(self):
        return "array(%s, 1d, A)" % self.dtype


class _LaunchConfiguration:
    def __init__(self, dispatcher, griddim, blockdim):
        self.dispatcher = dispatcher
        self.griddim = griddim
        self.blockdim = blockdim

    def __call__(self, *args):
        return self.dispatcher.call(args, self.griddim, self.blockdim, 0, 0)


class CUDADispatcher:
    def __init__(self, fn):
        self.py_func = fn
        self.overloads = {}
        self._can_compile = True
        self.specialized = False

    def __getitem__(self, config):
        return _LaunchConfiguration(self, config[0], config[1])

    def call(self, args, griddim, blockdim, stream, sharedmem):
        if not self._can_compile:
            types = next(iter(self.overloads))
            for t, a in zip(types, args):
                if isinstance(a, numpy.ndarray) and a.dtype.name != t.dtype:
                    raise TypeError("No matching definition for argument "
                                    "type(s) array(%s, 1d, C)"
                                    % a.dtype.name)
