"""The wrappers around each library's kernel launches.

Each wrapper records the launch and then calls what it wraps, exactly once,
with the same arguments, returning its result and letting its exceptions
through. The recording runs inside try/except and only counts a failure;
the wrapper's own frame is taken off the traceback of an exception that
passes through it, so a traceback prints as it would without the check.
"""

import functools
import json
import os
import sys
import weakref

from . import asynccopy, csig
from .describe import FORMAT_DTYPES, describe

_OWN_DIR = os.path.dirname(os.path.abspath(__file__))
REPEATS = 3  # records written for launches that differ only in values


def passthrough(check, orig, before):
    """Wraps orig: before(args, kwargs) runs first, guarded."""

    def wrapper(*args, **kwargs):
        try:
            before(args, kwargs)
        except Exception:
            check.failed()
        try:
            return orig(*args, **kwargs)
        except BaseException as e:
            e.__traceback__ = e.__traceback__.tb_next  # not this frame
            raise

    try:
        functools.update_wrapper(wrapper, orig)
    except Exception:
        pass
    wrapper.__clinic_wrapped__ = True
    return wrapper


def wrap_method(check, cls, name, before, after):
    """Replaces cls.name by a method that calls before(self, args, kwargs)
    first and after(self, result, args, kwargs) once it has returned, each
    guarded; what it wraps is called exactly once and its result returned,
    its exceptions let through."""
    orig = getattr(cls, name, None)
    if orig is None or getattr(orig, "__clinic_wrapped__", False):
        return

    def method(self, *args, **kwargs):
        if before is not None:
            try:
                before(self, args, kwargs)
            except Exception:
                check.failed()
        try:
            result = orig(self, *args, **kwargs)
        except BaseException as e:
            e.__traceback__ = e.__traceback__.tb_next  # not this frame
            raise
        if after is not None:
            try:
                after(self, result, args, kwargs)
            except Exception:
                check.failed()
        return result

    try:
        functools.update_wrapper(method, orig)
    except Exception:
        pass
    method.__clinic_wrapped__ = True
    setattr(cls, name, method)


def _format_dtypes(fmt):
    """pycuda's prepare() format string -> the dtype of each argument."""
    out = []
    count = ""
    for ch in fmt or "":
        if ch.isdigit():
            count += ch
            continue
        if ch == "s":
            out.append(None)  # count bytes of a struct: one argument
        elif ch in FORMAT_DTYPES:
            out.extend([FORMAT_DTYPES[ch]] * int(count or 1))
        count = ""
    return out


class Check:
    """What the wrappers share: the trace, the remembered facts, the
    folders of each wrapped library (a launch from inside a library is the
    library's own business) and the parsed signatures."""

    def __init__(self, trace, memory):
        self.trace = trace
        self.memory = memory
        self.lib_dirs = {}        # lib -> [folder, ...]
        self._params = {}         # (source, name) -> params
        self.sources = weakref.WeakKeyDictionary()  # pycuda module -> src
        self.functions = {}       # id(pycuda Function) -> (func, name, ps)
        self.seen = {}            # launch shape -> launches written

    def failed(self):
        self.trace.failures += 1

    def wrapped(self, lib, module):
        """Notes that lib is wrapped (pywrap record, libs of pyend)."""
        folder = os.path.dirname(os.path.abspath(module.__file__))
        dirs = self.lib_dirs.setdefault(lib, [])
        if folder not in dirs:
            dirs.append(folder)
        if lib not in self.trace.libs:
            self.trace.libs.append(lib)
            top = sys.modules.get(lib)
            version = getattr(top, "__version__", None) or getattr(
                top, "VERSION_TEXT", None)  # PyCUDA's
            self.trace.write({"ev": "pywrap", "lib": lib,
                              "version": str(version) if version else None})

    def params_of(self, source, name):
        key = (source, name)
        if key not in self._params:
            if len(self._params) > 1024:
                self._params.clear()
            try:
                self._params[key] = csig.kernel_params(source, name)
            except Exception:
                self.failed()
                self._params[key] = None
        return self._params[key]

    def _in(self, filename, dirs):
        return any(filename.startswith(d + os.sep) for d in dirs)

    def where(self, lib):
        """("file:line" of the program's line that launched, whether the
        launch came from inside the library itself)."""
        own = self.lib_dirs.get(lib, [])
        f = sys._getframe(1)
        while f is not None and f.f_code.co_filename.startswith(
                _OWN_DIR + os.sep):
            f = f.f_back
        internal = f is not None and lib != "numba" and self._in(
            f.f_code.co_filename, own)
        every = [d for ds in self.lib_dirs.values() for d in ds]
        while f is not None and (self._in(f.f_code.co_filename, every)
                                 or f.f_code.co_filename.startswith(
                                     _OWN_DIR + os.sep)):
            f = f.f_back
        if f is None:
            return None, internal
        name = f.f_code.co_filename
        try:
            rel = os.path.relpath(name)
            if not rel.startswith(".."):
                name = rel
        except ValueError:
            pass
        return "%s:%d" % (name, f.f_lineno), internal

    def _repeat(self, kernel, where, device, described):
        """Whether this launch only repeats one written REPEATS times
        already (same kernel, line, device and arguments but for their
        values): a loop of a million launches writes a few records, and
        pyend counts the rest."""
        key = json.dumps([kernel, where, device, _shape_of(described)],
                         sort_keys=True, default=str)
        count = self.seen.get(key, 0)
        if count >= REPEATS:
            self.trace.repeats += 1
            return True
        if len(self.seen) > 10000:
            self.seen.clear()
        self.seen[key] = count + 1
        return False

    def launch(self, lib, kernel, params, args, device_fn, sent=None,
               extra=None):
        where, internal = self.where(lib)
        if internal:
            self.trace.internal += 1
            return
        described = []
        for i, arg in enumerate(args):
            param = params[i] if params and i < len(params) else None
            s = sent[i] if sent and i < len(sent) else None
            try:
                described.append(describe(arg, lib, param, self.memory, s))
            except Exception:
                self.failed()
                described.append({"kind": "unknown",
                                  "pytype": type(arg).__name__})
        device = None
        if any(isinstance(a.get("device"), int) or isinstance(
                (a.get("tensor") or {}).get("device"), int)
               for a in described):
            try:
                device = int(device_fn())
            except Exception:
                self.failed()
        if self._repeat(kernel, where, device, described):
            return
        rec = {"ev": "pylaunch", "lib": lib, "kernel": kernel,
               "device": device, "params": params, "args": described,
               "where": where}
        if extra:
            rec.update(extra)
        self.trace.write(rec)


def _size_class(v):
    """What of a scalar's value the rules look at: whether an int fits in
    the bytes of each integer type."""
    if isinstance(v, bool) or not isinstance(v, int):
        return None
    return min(n for n in (8, 16, 32, 64, 128)
               if -2 ** (n - 1) <= v < 2 ** n)


def _shape_of(value):
    """value without its "value" fields (addresses and numbers), which
    change from one launch of a loop to the next, but for the size class
    of an int."""
    if isinstance(value, dict):
        return {k: _shape_of(v) if k != "value" else _size_class(v)
                for k, v in value.items()
                if k != "value" or value.get("kind") == "scalar"}
    if isinstance(value, list):
        return [_shape_of(v) for v in value]
    return value


def _dims(value):
    try:
        if isinstance(value, int):
            return [value]
        if hasattr(value, "x") and hasattr(value, "y"):  # a Dim3
            return [int(value.x), int(value.y), int(getattr(value, "z", 1))]
        return [int(v) for v in value]
    except Exception:
        return None


# ---------------------------------------------------------------- CuPy


def patch_cupy(check, cupy):
    base_k = getattr(cupy, "RawKernel", None)
    base_m = getattr(cupy, "RawModule", None)
    if base_k is None or getattr(base_k, "__clinic_wrapped__", False):
        return
    runtime = None

    def device():
        nonlocal runtime
        if runtime is None:
            runtime = sys.modules["cupy"].cuda.runtime
        return runtime.getDevice()

    class _Same(type):
        """isinstance() and issubclass() answer for the class wrapped, so
        kernels that CuPy makes itself still count as RawKernels."""

        def __instancecheck__(cls, obj):
            return isinstance(obj, cls.__clinic_base__)

        def __subclasscheck__(cls, sub):
            return issubclass(sub, cls.__clinic_base__)

    def reduce_as(base):
        def __reduce_ex__(self, protocol):
            r = base.__reduce_ex__(self, protocol)
            if isinstance(r, tuple) and len(r) >= 2 and \
                    isinstance(r[1], tuple) and r[1] and \
                    r[1][0] is type(self):
                r = (r[0], (base,) + r[1][1:]) + tuple(r[2:])
            return r
        return __reduce_ex__

    def source_of(kernel):
        try:
            return kernel.code, kernel.name
        except AttributeError:
            state = kernel.__getstate__()
            return state.get("code"), state.get("name")

    def record(kernel, a, k):
        args = a[2] if len(a) > 2 else k.get("args", ())
        grid = a[0] if a else k.get("grid")
        block = a[1] if len(a) > 1 else k.get("block")
        code, name = source_of(kernel)
        params = check.params_of(code, name) if code else None
        check.launch("cupy", name, params, tuple(args), device,
                     extra={"grid": _dims(grid), "block": _dims(block)})

    class RawKernel(base_k, metaclass=_Same):
        __clinic_base__ = base_k
        __clinic_wrapped__ = True
        __reduce_ex__ = reduce_as(base_k)

        def __call__(self, *a, **k):
            try:
                record(self, a, k)
            except Exception:
                check.failed()
            try:
                return base_k.__call__(self, *a, **k)
            except BaseException as e:
                e.__traceback__ = e.__traceback__.tb_next
                raise

    def rewrap(kernel):
        new = RawKernel.__new__(RawKernel)
        new.__setstate__(kernel.__getstate__())
        return new

    for cls, base in ((RawKernel, base_k),):
        cls.__module__ = base.__module__
        cls.__qualname__ = base.__qualname__
        cls.__doc__ = base.__doc__
    cupy.RawKernel = RawKernel
    if base_m is not None:
        class RawModule(base_m, metaclass=_Same):
            __clinic_base__ = base_m
            __clinic_wrapped__ = True
            __reduce_ex__ = reduce_as(base_m)

            def get_function(self, *a, **k):
                try:
                    kernel = base_m.get_function(self, *a, **k)
                except BaseException as e:
                    e.__traceback__ = e.__traceback__.tb_next
                    raise
                try:
                    return rewrap(kernel)
                except Exception:
                    check.failed()
                    return kernel

        RawModule.__module__ = base_m.__module__
        RawModule.__qualname__ = base_m.__qualname__
        RawModule.__doc__ = base_m.__doc__
        cupy.RawModule = RawModule
    check.wrapped("cupy", cupy)
    for other in ("cupyx", "cupy_backends"):
        folder = os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(cupy.__file__))), other)
        check.lib_dirs["cupy"].append(folder)


# -------------------------------------------------------------- PyCUDA


def _function_info(check, func):
    info = getattr(func, "_clinic_kernel", None)
    if info is None:
        entry = check.functions.get(id(func))
        if entry is not None and entry[0] is func:
            info = entry[1:]
    return info if info is not None else (None, None)


def patch_pycuda_driver(check, driver):
    Function = getattr(driver, "Function", None)
    if Function is None or getattr(Function.__call__, "__clinic_wrapped__",
                                   False):
        return

    def device():
        # PyCUDA's Device has no ordinal to read; the launch's device is
        # left unknown rather than found by probing every device.
        raise LookupError

    def call(a, k):
        func = a[0]
        name, params = _function_info(check, func)
        check.launch("pycuda", name, params, a[1:], device,
                     extra={"grid": _dims(k.get("grid", (1, 1))),
                            "block": _dims(k.get("block"))})

    def prepared(skip):
        def before(a, k):
            func = a[0]
            name, params = _function_info(check, func)
            fmt = getattr(func, "arg_format", None)
            check.launch("pycuda", name, params, a[skip:], device,
                         sent=_format_dtypes(fmt),
                         extra={"prepared": fmt,
                                "grid": _dims(a[1]) if len(a) > 1 else None,
                                "block": _dims(a[2]) if len(a) > 2 else None})
        return before

    Function.__call__ = passthrough(check, Function.__call__, call)
    for attr, skip in (("prepared_call", 3), ("prepared_timed_call", 3),
                       ("prepared_async_call", 4)):
        orig = getattr(Function, attr, None)
        if orig is not None:
            setattr(Function, attr, passthrough(check, orig, prepared(skip)))

    def fill(a, k):
        dest = a[0] if a else k.get("dest")
        src = a[1] if len(a) > 1 else k.get("src")
        np = sys.modules.get("numpy")
        if np is not None and isinstance(src, np.ndarray):
            check.memory.filled_from(dest, src)

    for attr in ("memcpy_htod", "memcpy_htod_async"):
        orig = getattr(driver, attr, None)
        if orig is not None:
            setattr(driver, attr, passthrough(check, orig, fill))
    check.wrapped("pycuda", driver)


def patch_pycuda_compiler(check, compiler):
    base = getattr(compiler, "CudaModule", None)
    if base is None or getattr(base.get_function, "__clinic_wrapped__",
                               False):
        return

    def keep_source(a, k):
        module = a[0]
        source = a[1] if len(a) > 1 else k.get("source")
        if isinstance(source, str):
            check.sources[module] = check.sources.get(module, "") + \
                source + "\n"

    for cls_name, attr in (("SourceModule", "__init__"),
                           ("DynamicModule", "add_source")):
        cls = getattr(compiler, cls_name, None)
        if cls is not None and attr in cls.__dict__:
            setattr(cls, attr, passthrough(check, cls.__dict__[attr],
                                           keep_source))
    orig = base.get_function

    def get_function(self, name):
        try:
            func = orig(self, name)
        except BaseException as e:
            e.__traceback__ = e.__traceback__.tb_next
            raise
        try:
            source = check.sources.get(self)
            params = check.params_of(source, name) if source else None
            try:
                func._clinic_kernel = (name, params)
            except Exception:
                if len(check.functions) > 4096:
                    check.functions.clear()
                check.functions[id(func)] = (func, name, params)
        except Exception:
            check.failed()
        return func

    try:
        functools.update_wrapper(get_function, orig)
    except Exception:
        pass
    get_function.__clinic_wrapped__ = True
    base.get_function = get_function


# --------------------------------------------------------------- Numba


def _numba_params(dispatcher):
    """The parameters of a dispatcher compiled for one explicit signature
    (None when Numba compiles for whatever it is given)."""
    if getattr(dispatcher, "_can_compile", True) and \
            not getattr(dispatcher, "specialized", False):
        return None
    overloads = list(getattr(dispatcher, "overloads", {}).keys())
    if len(overloads) != 1:
        return None
    code = dispatcher.py_func.__code__
    names = code.co_varnames[:code.co_argcount]
    params = []
    for i, t in enumerate(overloads[0]):
        name = names[i] if i < len(names) else None
        if hasattr(t, "dtype") and hasattr(t, "ndim"):
            params.append({"name": name, "type": str(t),
                           "dtype": str(t.dtype), "pointer": True,
                           "ndim": t.ndim,
                           "layout": getattr(t, "layout", None)})
        else:
            params.append({"name": name, "type": str(t), "dtype": str(t),
                           "pointer": False})
    return params


def patch_numba(check, dispatcher_module):
    cls = getattr(dispatcher_module, "CUDADispatcher", None)
    if cls is None or getattr(cls.call, "__clinic_wrapped__", False):
        return

    def device():
        cuda = sys.modules.get("numba.cuda") or sys.modules[
            "numba_cuda.numba.cuda"]
        return cuda.current_context().device.id

    def before(a, k):
        self = a[0]
        args = a[1] if len(a) > 1 else k.get("args", ())
        name = getattr(self.py_func, "__name__", None)
        check.launch("numba", name, _numba_params(self), tuple(args), device,
                     extra={"grid": _dims(a[2] if len(a) > 2 else None),
                            "block": _dims(a[3] if len(a) > 3 else None),
                            "sig": "explicit" if not getattr(
                                self, "_can_compile", True) else "lazy"})

    cls.call = passthrough(check, cls.call, before)
    check.wrapped("numba", dispatcher_module)
    folder = os.path.dirname(os.path.dirname(os.path.abspath(
        dispatcher_module.__file__)))
    check.lib_dirs["numba"].append(folder)
    numba = sys.modules.get("numba")
    if numba is not None and getattr(numba, "__file__", None):
        check.lib_dirs["numba"].append(os.path.dirname(os.path.abspath(
            numba.__file__)))


def patch_numba_package(check, package):
    """The same, from numba.cuda itself, should its dispatcher module have
    been imported under another name (numba-cuda's redirection)."""
    module = (sys.modules.get("numba.cuda.dispatcher")
              or sys.modules.get("numba_cuda.numba.cuda.dispatcher")
              or getattr(package, "dispatcher", None))
    if module is not None:
        patch_numba(check, module)


# --------------------------------------------------------------- torch


def patch_torch(check, torch):
    tensor = getattr(torch, "Tensor", None)
    if tensor is None or getattr(tensor.data_ptr, "__clinic_wrapped__",
                                 False):
        return
    orig = tensor.data_ptr
    memory = check.memory

    def data_ptr(self):
        try:
            p = orig(self)
        except BaseException as e:
            e.__traceback__ = e.__traceback__.tb_next
            raise
        try:
            if p:
                memory.tensor_pointer(p, self)
        except Exception:
            check.failed()
        return p

    try:
        functools.update_wrapper(data_ptr, orig)
    except Exception:
        pass
    data_ptr.__clinic_wrapped__ = True
    tensor.data_ptr = data_ptr
    check.wrapped("torch", torch)
    try:
        asynccopy.patch(check, torch, lambda cls, name, before, after:
                        wrap_method(check, cls, name, before, after))
    except Exception:
        check.failed()
