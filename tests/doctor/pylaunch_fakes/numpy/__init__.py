"""A stand-in for numpy: dtypes, scalars and arrays, no arithmetic."""

_SIZES = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2,
          "int32": 4, "uint32": 4, "int64": 8, "uint64": 8, "float16": 2,
          "float32": 4, "float64": 8}
_CHARS = {"int32": "i", "int64": "l", "uint64": "L", "float32": "f",
          "float64": "d", "bool": "?"}


class dtype:
    def __init__(self, name):
        name = getattr(name, "_name", name)
        self.name = name
        self.itemsize = _SIZES[name]
        self.char = _CHARS.get(name, "x")

    def __eq__(self, other):
        return isinstance(other, dtype) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


class generic:
    _name = None

    def __init__(self, value):
        self.value = value
        self.dtype = dtype(self._name)

    def item(self):
        return self.value


class float32(generic):
    _name = "float32"


class float64(float, generic):
    """Like numpy's: a subclass of Python's float too."""
    _name = "float64"

    def __new__(cls, value):
        self = float.__new__(cls, value)
        self.value = float(value)
        self.dtype = dtype("float64")
        return self

    def __init__(self, value):
        pass


class int32(generic):
    _name = "int32"


class int64(generic):
    _name = "int64"


class uint64(generic):
    _name = "uint64"


uintp = uint64


class _Flags:
    def __init__(self, c, f):
        self.c_contiguous = c
        self.f_contiguous = f


def c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.insert(0, step)
        step *= n
    return tuple(strides)


class ndarray:
    def __init__(self, shape, dt="float64", strides=None, order="C"):
        self.dtype = dtype(dt)
        self.shape = tuple(shape)
        size = self.dtype.itemsize
        if strides is None:
            if order == "F":
                strides = tuple(reversed(c_strides(tuple(reversed(shape)),
                                                   size)))
            else:
                strides = c_strides(shape, size)
        self.strides = tuple(strides)
        c = self.strides == c_strides(self.shape, size)
        f = self.strides == tuple(reversed(c_strides(
            tuple(reversed(self.shape)), size)))
        self.flags = _Flags(c, f)
        self.nbytes = size
        for n in shape:
            self.nbytes *= n

    @property
    def T(self):
        return type(self)(tuple(reversed(self.shape)), self.dtype.name,
                          tuple(reversed(self.strides)))


def empty(shape, dtype="float64", order="C"):
    return ndarray(shape if isinstance(shape, tuple) else (shape,),
                   getattr(dtype, "_name", dtype), order=order)
