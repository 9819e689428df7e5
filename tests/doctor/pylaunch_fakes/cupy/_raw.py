"""RawKernel and RawModule as CuPy has them (its classes are Cython's)."""

import cupy
import numpy


class RawKernel:
    def __init__(self, code, name, options=(), backend="nvrtc"):
        self.code = code
        self.name = name
        self.options = options
        self.raw_ver = 2

    def __call__(self, grid, block, args, **kwargs):
        for i, a in enumerate(args):
            # CuPy takes its arrays, numpy scalars and Python numbers.
            if not isinstance(a, (cupy.ndarray, numpy.generic, int, float,
                                  bool)):
                raise TypeError("Unsupported type %s" % type(a))
        cupy.launched.append((self.name, len(args)))

    def __getstate__(self):
        return {"code": self.code, "name": self.name,
                "options": self.options, "raw_ver": self.raw_ver}

    def __setstate__(self, state):
        self.code = state["code"]
        self.name = state["name"]
        self.options = state["options"]
        self.raw_ver = state["raw_ver"]


class RawModule:
    def __init__(self, code=None, path=None, options=()):
        self.code = code
        self.options = options

    def get_function(self, name):
        return RawKernel(self.code, name, self.options)
