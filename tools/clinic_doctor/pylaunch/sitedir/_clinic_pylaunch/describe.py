"""What each argument of a launch is, as plain JSON.

Nothing here imports a library: an argument's kind is told from its type's
module and from the modules the program has already imported
(sys.modules). Every reading is of attributes the libraries document
(dtype, shape, strides, flags, device) and has no side effect.
"""

import collections
import math
import sys
import weakref

# pycuda's prepare() format characters (Python's struct codes) -> dtype.
FORMAT_DTYPES = {
    "b": "int8", "B": "uint8", "h": "int16", "H": "uint16",
    "i": "int32", "I": "uint32", "l": "int64", "L": "uint64",
    "q": "int64", "Q": "uint64", "e": "float16", "f": "float32",
    "d": "float64", "F": "complex64", "D": "complex128", "?": "bool",
    "P": "pointer",
}

# What a library sends for a plain Python scalar. CuPy turns it into a
# numpy scalar (int -> int64, float -> float64) and passes its bytes;
# PyCUDA's unprepared call refuses it (TypeError); Numba converts it to the
# signature's type.
PYTHON_SCALARS = {
    "cupy": {"bool": "bool", "int": "int64", "float": "float64",
             "complex": "complex128"},
    "pycuda": {},
    "numba": {},
}

_KEEP = 4096  # remembered data_ptr() results and copies


class Memory:
    """Facts remembered between calls: which tensor a data_ptr() result
    came from, and which host array a PyCUDA allocation was filled from."""

    def __init__(self):
        self.tensors = collections.OrderedDict()   # address -> array meta
        self.filled_addr = collections.OrderedDict()
        try:
            self.filled = weakref.WeakKeyDictionary()
        except Exception:  # pragma: no cover
            self.filled = None

    @staticmethod
    def _put(table, key, value):
        table[key] = value
        table.move_to_end(key)
        while len(table) > _KEEP:
            table.popitem(last=False)

    def tensor_pointer(self, address, tensor):
        self._put(self.tensors, int(address), array_meta(tensor, "torch"))

    def filled_from(self, dest, host):
        meta = array_meta(host, _lib_of(host) or "numpy")
        try:
            if self.filled is not None and not isinstance(dest, int):
                self.filled[dest] = meta
                return
        except TypeError:
            pass  # not weakly referable: remember its address instead
        self._put(self.filled_addr, int(dest), meta)

    def filled_meta(self, obj):
        try:
            if self.filled is not None and not isinstance(obj, int):
                meta = self.filled.get(obj)
                if meta is not None:
                    return meta
        except TypeError:
            pass
        try:
            return self.filled_addr.get(int(obj))
        except Exception:
            return None


def _lib_of(x):
    mod = type(x).__module__ or ""
    top = mod.split(".")[0]
    if top in ("cupy", "cupy_backends", "cupyx"):
        return "cupy"
    if top in ("numba", "numba_cuda"):
        return "numba"
    if top in ("torch", "pycuda", "numpy"):
        return top
    return None


def _number(v):
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    if isinstance(v, complex):
        return repr(v)
    return v


def _dtype_name(dtype):
    name = getattr(dtype, "name", None)
    if isinstance(name, str):
        return name
    text = str(dtype)
    return text[6:] if text.startswith("torch.") else text


def _contiguity(shape, strides, itemsize):
    """(C, Fortran) contiguity from byte strides, numpy's way: a dimension
    of length 1 may have any stride; an empty array is both."""
    if any(s == 0 for s in shape):
        return True, True

    def dense(dims):
        want = itemsize
        for length, stride in dims:
            if length != 1 and stride != want:
                return False
            want *= length
        return True

    pairs = list(zip(shape, strides))
    return dense(reversed(pairs)), dense(pairs)


def _torch_meta(t):
    size = t.element_size()
    shape = [int(s) for s in t.shape]
    strides = [int(s) * size for s in t.stride()]
    c_ok, f_ok = _contiguity(shape, strides, size)
    dev = t.device
    return {"kind": "array", "dtype": _dtype_name(t.dtype), "shape": shape,
            "strides": strides, "c_contiguous": bool(t.is_contiguous()),
            "f_contiguous": f_ok,
            "device": dev.index if dev.type == "cuda" else None,
            "lib": "torch"}


def array_meta(x, lib):
    """The array fields of the trace format for an array of lib."""
    if lib == "torch":
        return _torch_meta(x)
    shape = [int(s) for s in x.shape]
    strides = [int(s) for s in x.strides] if x.strides is not None else None
    flags = getattr(x, "flags", None)
    c_ok = f_ok = None
    if lib == "numba" and hasattr(x, "is_c_contiguous"):
        c_ok, f_ok = bool(x.is_c_contiguous()), bool(x.is_f_contiguous())
    elif isinstance(flags, dict):
        c_ok = flags.get("C_CONTIGUOUS")
        f_ok = flags.get("F_CONTIGUOUS")
    elif flags is not None:
        c_ok = bool(flags.c_contiguous)
        f_ok = bool(flags.f_contiguous)
    if c_ok is None and strides is not None:
        c_ok, f_ok = _contiguity(shape, strides, x.dtype.itemsize)
    device = None
    if lib == "cupy":
        device = int(x.device.id)
    elif lib == "numba":
        try:
            device = int(x.gpu_data.context.device.id)
        except Exception:
            device = None
    return {"kind": "array", "dtype": _dtype_name(x.dtype), "shape": shape,
            "strides": strides, "c_contiguous": c_ok, "f_contiguous": f_ok,
            "device": device, "lib": lib}


def _cai_meta(cai):
    """Array fields from a __cuda_array_interface__ dict."""
    np = sys.modules.get("numpy")
    typestr = cai.get("typestr", "")
    dtype, itemsize = typestr, None
    if np is not None:
        d = np.dtype(typestr)
        dtype, itemsize = d.name, d.itemsize
    shape = [int(s) for s in cai.get("shape", ())]
    strides = cai.get("strides")
    if strides is None and itemsize:
        c_ok, f_ok = True, len([s for s in shape if s != 1]) <= 1
        strides = []
        step = itemsize
        for length in reversed(shape):
            strides.insert(0, step)
            step *= length
    elif itemsize:
        strides = [int(s) for s in strides]
        c_ok, f_ok = _contiguity(shape, strides, itemsize)
    else:
        c_ok = f_ok = None
    return {"kind": "array", "dtype": dtype, "shape": shape,
            "strides": strides, "c_contiguous": c_ok, "f_contiguous": f_ok,
            "device": None, "lib": "other"}


def _pointer(value, memory, extra=None):
    rec = {"kind": "pointer", "value": "0x%x" % (int(value) & (2**64 - 1))}
    tensor = memory.tensors.get(int(value))
    if tensor is not None:
        rec["tensor"] = tensor
    if extra:
        rec.update(extra)
    return rec


def describe(x, lib, param, memory, sent=None):
    """One argument of a launch by lib ("cupy", "pycuda", "numba").
    param is the kernel's parameter at this place (or None); sent is the
    dtype the library packs this argument as, where the launch fixes it
    (PyCUDA's prepared calls)."""
    pointer_param = bool(param and param.get("pointer"))
    if x is None:
        return {"kind": "none"}
    # numpy scalars first: numpy.float64 is a Python float too.
    np = sys.modules.get("numpy")
    if np is not None and isinstance(x, np.generic):
        dtype = _dtype_name(x.dtype)
        value = x.item() if hasattr(x, "item") else None
        if isinstance(value, int) and not isinstance(value, bool) and (
                value in memory.tensors or (pointer_param and value > 0)):
            return _pointer(value, memory, {"pytype": type(x).__name__,
                                            "dtype": dtype})
        if not isinstance(value, (bool, int, float, complex)):
            value = None
        return {"kind": "scalar", "pytype": type(x).__name__,
                "dtype": sent or dtype, "value": _number(value)}
    if isinstance(x, (bool, int, float, complex)):
        pytype = ("bool" if isinstance(x, bool) else "int"
                  if isinstance(x, int) else "float"
                  if isinstance(x, float) else "complex")
        if pytype == "int" and (int(x) in memory.tensors or pointer_param):
            return _pointer(x, memory, {"pytype": "int"})
        dtype = sent or PYTHON_SCALARS.get(lib, {}).get(pytype)
        return {"kind": "scalar", "pytype": pytype, "dtype": dtype,
                "value": _number(x if pytype != "bool" else bool(x))}
    xlib = _lib_of(x)
    tname = type(x).__name__
    if xlib == "torch" and hasattr(x, "data_ptr"):
        return _torch_meta(x)
    if xlib == "cupy" and hasattr(x, "dtype") and hasattr(x, "strides"):
        return array_meta(x, "cupy")
    if xlib == "pycuda":
        if tname in ("DeviceAllocation", "PooledDeviceAllocation") or (
                not hasattr(x, "dtype") and hasattr(x, "__int__")):
            filled = memory.filled_meta(x)
            return _pointer(int(x), memory, {"lib": "pycuda",
                                             "pytype": tname,
                                             **({"filled_from": filled}
                                                if filled else {})})
        if hasattr(x, "array") and hasattr(x, "get_device_alloc"):
            meta = array_meta(x.array, _lib_of(x.array) or "numpy")
            meta["handler"] = tname  # drv.In, drv.Out, drv.InOut
            return meta
        if hasattr(x, "gpudata") and hasattr(x, "dtype"):
            return array_meta(x, "pycuda")
    if xlib == "numba" and hasattr(x, "dtype") and hasattr(x, "shape"):
        return array_meta(x, "numba")
    if np is not None and isinstance(x, np.ndarray):
        return array_meta(x, "numpy")
    cai = getattr(type(x), "__cuda_array_interface__", None)
    if cai is not None:
        meta = _cai_meta(x.__cuda_array_interface__)
        meta["lib"] = xlib or (type(x).__module__ or "other").split(".")[0]
        return meta
    return {"kind": "other", "pytype": tname}
