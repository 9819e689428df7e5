"""A stand-in for torch: tensors with strides, devices and data_ptr(), and
the copies between host and device with non_blocking=True, which finish
only at torch.cuda.synchronize() (or an event's synchronize()) here."""

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


class _Storage:
    def __init__(self, ptr, nbytes):
        self._ptr, self._nbytes = ptr, nbytes

    def data_ptr(self):
        return self._ptr

    def nbytes(self):
        return self._nbytes


class Tensor(_TensorBase):
    def __init__(self, shape, dt, dev=None, stride=None, ptr=None,
                 storage=None, pinned=False):
        self.shape = tuple(shape)
        self._pinned = pinned
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
        self._storage = storage or _Storage(ptr, self.numel() * _SIZES[
            dt.name])

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def untyped_storage(self):
        return self._storage

    def is_pinned(self):
        return self._pinned

    def _like(self, dev, pinned=False):
        return Tensor(self.shape, self.dtype, dev, pinned=pinned)

    def to(self, where, non_blocking=False):
        kind = where.split(":")[0]
        if kind == self.device.type:
            return self
        return self._like(device(kind, 0 if kind == "cuda" else None),
                          pinned=kind == "cpu" and non_blocking)

    def cuda(self, device_index=None, non_blocking=False):
        return self.to("cuda", non_blocking)

    def copy_(self, src, non_blocking=False):
        return self

    def __getitem__(self, index):
        return Tensor((1,), self.dtype, self.device, ptr=self._ptr,
                      storage=self._storage, pinned=self._pinned)

    def item(self):
        return 0

    def numpy(self):
        return [0] * self.numel()

    def fill_(self, value):
        return self

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


def empty(*shape, dtype=float32, device_index=0, device=None,
          pin_memory=False):
    if device == "cpu" or pin_memory:
        return Tensor(shape, dtype, _device("cpu"), pinned=pin_memory)
    return Tensor(shape, dtype, _device("cuda", device_index))


_device = device


class _Cuda:
    """torch.cuda: a queued copy is done once the host has synchronized
    after it (torch.cuda.synchronize() or its event's synchronize())."""

    def __init__(self):
        self.queued = 0  # copies and events, in order
        self.done = 0    # the host has waited up to here

    def is_current_stream_capturing(self):
        return False

    def current_stream(self, device=None):
        return "stream"

    def synchronize(self):
        self.done = self.queued

    @property
    def Event(self):
        cuda = self

        class Event:
            def record(self, stream=None):
                cuda.queued += 1
                self.at = cuda.queued

            def query(self):
                return cuda.done >= self.at

            def synchronize(self):
                cuda.done = max(cuda.done, self.at)

        return Event


cuda = _Cuda()
