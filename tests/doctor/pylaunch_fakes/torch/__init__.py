"""A stand-in for torch: tensors with strides, devices and data_ptr()."""

_SIZES = {"float32": 4, "float64": 8, "int32": 4}
_next = [0x7e0000000000]


class dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


float32 = dtype("float32")
float64 = dtype("float64")
int32 = dtype("int32")


class device:
    def __init__(self, type, index=None):
        self.type = type
        self.index = index


class _TensorBase:
    def data_ptr(self):
        return self._ptr


class Tensor(_TensorBase):
    def __init__(self, shape, dt, dev=None, stride=None, ptr=None):
        self.shape = tuple(shape)
        self.dtype = dt
        self.device = dev or device("cuda", 0)
        if stride is None:
            stride, step = [], 1
            for n in reversed(shape):
                stride.insert(0, step)
                step *= n
        self._stride = tuple(stride)
        if ptr is None:
            ptr = _next[0]
            _next[0] += 0x10000
        self._ptr = ptr

    def stride(self):
        return self._stride

    def element_size(self):
        return _SIZES[self.dtype.name]

    def is_contiguous(self):
        want = 1
        for n, s in zip(reversed(self.shape), reversed(self._stride)):
            if n != 1 and s != want:
                return False
            want *= n
        return True

    def t(self):
        return Tensor(tuple(reversed(self.shape)), self.dtype, self.device,
                      tuple(reversed(self._stride)), self._ptr)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"


def empty(*shape, dtype=float32, device_index=0):
    return Tensor(shape, dtype, device("cuda", device_index))
