"""Findings from the Python launch check's records (py-<pid>.jsonl).

  29  an argument whose type differs from the kernel's parameter: an array
      (or a tensor's data_ptr(), or a PyCUDA allocation filled from a host
      array) of another dtype than the pointer's, or a scalar that goes to
      the kernel with another size or kind than the parameter's;
  30  a non-contiguous or Fortran-order array, or the data_ptr() of a
      non-contiguous tensor, handed to a raw kernel (which gets only the
      address of the first element);
  32  an array on another device than the one the kernel runs on;
  09  a host tensor read (numpy(), item(), print) while the non_blocking
      copy that fills it is still queued (a pyasync record);
  19  a pinned host tensor written while the non_blocking copy that reads
      it is still queued (likewise).

What each library sends for a scalar decides rule 29 (the check writes it
as the argument's "dtype"): CuPy passes a Python int as int64 and a Python
float as float64, each from its own 8 bytes, and the kernel reads as many
bytes as its parameter has, so an int64 that fits an `int` arrives whole
(little-endian) while a float64 read as `float` does not; PyCUDA packs the
arguments one after the other, so any size that differs moves every later
argument, and it refuses a plain Python int or float (TypeError); Numba
converts scalars to its signature's types, so only its arrays are checked.
A launch made by a library for itself is not recorded, nor one that repeats
three written ones but for its values (pyend counts those).
"""

# dtype name -> (kind, bytes); bool counts as an integer of range 0..1.
_DTYPES = {
    "bool": ("int", 1), "int8": ("int", 1), "uint8": ("int", 1),
    "int16": ("int", 2), "uint16": ("int", 2), "int32": ("int", 4),
    "uint32": ("int", 4), "int64": ("int", 8), "uint64": ("int", 8),
    "float16": ("float", 2), "bfloat16": ("float", 2),
    "float32": ("float", 4), "float64": ("float", 8),
    "complex64": ("complex", 8), "complex128": ("complex", 16),
}
# Pointer parameters that take any bytes: no dtype to hold an array to.
_BYTE_TYPES = {"void", "char", "signed char", "unsigned char", "int8_t",
               "uint8_t"}
_RAW_LIBS = ("cupy", "pycuda")


_NAMES = {"cupy": "CuPy", "pycuda": "PyCUDA", "numba": "Numba"}


def _a(text):
    """text with its article."""
    return ("an " if text[:1] in "aeiouAEIOU" or text.startswith("int")
            else "a ") + text


def _info(dtype):
    return _DTYPES.get(dtype) if isinstance(dtype, str) else None


def _int_range(dtype):
    bits = 8 * _DTYPES[dtype][1]
    if dtype == "bool":
        return 0, 1
    if dtype.startswith("u"):
        return 0, 2 ** bits - 1
    return -2 ** (bits - 1), 2 ** (bits - 1) - 1


def _param_text(param, i):
    name = param.get("name") if param else None
    text = "parameter %d" % i
    if name:
        text += " `%s`" % name
    if param and param.get("type"):
        text += " (%s)" % param["type"]
    return text


def _array_text(meta):
    text = "%s %s array, shape %s, strides %s" % (
        meta.get("dtype"), meta.get("lib"), meta.get("shape"),
        meta.get("strides"))
    if meta.get("c_contiguous") is False:
        text += ", not C-contiguous"
        if meta.get("f_contiguous"):
            text += " (Fortran order)"
    if isinstance(meta.get("device"), int):
        text += ", device %d" % meta["device"]
    if meta.get("handler"):
        text += ", in drv.%s" % meta["handler"]
    return text


def arg_text(arg):
    """An argument as evidence quotes it."""
    kind = arg.get("kind")
    if kind == "array":
        return _a(_array_text(arg))
    if kind == "pointer":
        text = "pointer %s" % arg.get("value")
        if arg.get("tensor"):
            tensor = _array_text(arg["tensor"])
            text += " = data_ptr() of " + _a(
                tensor.replace(" torch array", " torch tensor"))
        if arg.get("filled_from"):
            text += ", an allocation filled from " + \
                _a(_array_text(arg["filled_from"]))
        return text
    if kind == "scalar":
        py = arg.get("pytype")
        sent = arg.get("dtype")
        text = "%s %r" % ("Python " + py if py in ("int", "float", "bool",
                                                   "complex") else py,
                          arg.get("value"))
        if sent and sent != py:
            text += " (sent as %s)" % sent
        elif sent is None and py in ("int", "float", "bool", "complex"):
            text += " (refused by PyCUDA)"
        return text
    return _a(str(arg.get("pytype") or kind))


def _record_text(rec, with_pid=False):
    pid = " of pid %s" % rec.get("pid") if with_pid else ""
    return "py#%s%s %s launch of `%s` at %s" % (
        rec.get("n"), pid, rec.get("lib"), rec.get("kernel"),
        rec.get("where"))


def _array_of(arg):
    """The array an argument stands for (itself, the tensor whose
    data_ptr() it is, or the host array its allocation was filled from),
    and how to say so."""
    if arg.get("kind") == "array":
        return arg, _a("%s %s array" % (arg.get("dtype"), arg.get("lib")))
    if arg.get("kind") == "pointer":
        if arg.get("tensor"):
            t = arg["tensor"]
            return t, "the data_ptr() of %s" % _a("%s tensor" % t.get("dtype"))
        if arg.get("filled_from"):
            f = arg["filled_from"]
            return f, "an allocation filled from %s" % _a(
                "%s array" % f.get("dtype"))
    return None, None


def _check_29(rec, i, arg, param):
    """(key or None, sentence) or None."""
    lib = rec.get("lib")
    if not param or not param.get("dtype"):
        return None
    kernel = rec.get("kernel")
    where = _param_text(param, i)
    if param.get("pointer"):
        meta, what = _array_of(arg)
        if meta is None or param.get("base") in _BYTE_TYPES:
            return None
        have, want = _info(meta.get("dtype")), _info(param.get("dtype"))
        if have is None or want is None or have == want:
            return None
        return (None, "%s is passed as %s of kernel `%s`, so the kernel "
                "reads %d-byte %s values where the data holds %d-byte %s "
                "values" % (what, where, kernel, want[1], param["dtype"],
                            have[1], meta.get("dtype")))
    if arg.get("kind") != "scalar" or lib == "numba":
        return None
    want = _info(param.get("dtype"))
    if want is None:
        return None
    sent = arg.get("dtype")
    py = arg.get("pytype")
    if sent is None:
        if lib == "pycuda" and not rec.get("prepared") and \
                py in ("int", "float", "bool", "complex"):
            return (None, "a Python %s is passed as %s of kernel `%s`; "
                    "PyCUDA refuses it (TypeError) because it cannot tell "
                    "what size to pass: the parameter needs numpy.%s"
                    % (py, where, kernel, param["dtype"]))
        return None
    have = _info(sent)
    if have is None or have == want:
        return None
    what = ("a Python %s, which %s sends as %s," % (py, _NAMES.get(lib, lib),
                                                    sent)
            if py in ("int", "float", "bool", "complex") else
            _a("%s scalar" % sent))
    if lib == "cupy" and have[0] == want[0] == "int" and have[1] > want[1]:
        value = arg.get("value")
        low, high = _int_range(param["dtype"])
        if isinstance(value, int) and low <= value <= high:
            return None  # the kernel reads its low bytes: the same number
    if lib == "pycuda":
        effect = ("PyCUDA packs the arguments one after another, so this "
                  "%d-byte value fills a %d-byte place and moves every "
                  "later argument" % (have[1], want[1])
                  if have[1] != want[1] else
                  "the kernel reads its bytes as %s" % param["dtype"])
    elif have[1] < want[1]:
        effect = "the kernel reads %d bytes where %d were given" % (
            want[1], have[1])
    else:
        effect = "the kernel reads %d of its %d bytes as %s" % (
            want[1], have[1], param["dtype"])
    return (None, "%s is passed as %s of kernel `%s`: %s"
            % (what, where, kernel, effect))


def _check_30(rec, i, arg, param):
    if rec.get("lib") not in _RAW_LIBS:
        return None
    meta, what = _array_of(arg)
    if meta is None or arg.get("filled_from") or \
            meta.get("c_contiguous") is not False:
        return None
    order = ("in Fortran order" if meta.get("f_contiguous") else
             "not contiguous")
    return (None, "%s, %s (shape %s, strides %s), is passed as %s of raw "
            "kernel `%s`, which gets only the address of its first element "
            "and reads the elements as if they were dense rows"
            % (what[0].upper() + what[1:], order, meta.get("shape"),
               meta.get("strides"), _param_text(param, i),
               rec.get("kernel")))


def _check_32(rec, i, arg, param):
    device = rec.get("device")
    meta, what = _array_of(arg)
    if not isinstance(device, int) or meta is None:
        return None
    other = meta.get("device")
    if not isinstance(other, int) or other == device:
        return None
    # One finding for the launch, however many of its arguments are
    # elsewhere: the key leaves out which argument.
    return ("device %d %d" % (device, other),
            "kernel `%s` runs on device %d (the current device at the "
            "launch) but is given memory on device %d: %s, as %s"
            % (rec.get("kernel"), device, other, what, _param_text(param, i)))


def _record_size(meta):
    """The bytes of one record of a NumPy structured ("voidN") array, or
    None for any other array."""
    dtype = meta.get("dtype") if isinstance(meta, dict) else None
    if not isinstance(dtype, str) or not dtype.startswith("void") or \
            not dtype[4:].isdigit():
        return None
    strides = meta.get("strides") or []
    return strides[0] if len(strides) == 1 else int(dtype[4:]) // 8


def _check_16(rec, i, arg, param):
    """A hint (weak): a struct pointer filled from NumPy records whose size
    is no multiple of 4 bytes, the packed layout NumPy gives without
    align=True; a struct with an int or float member is padded to one."""
    if not isinstance(param, dict) or not param.get("pointer") or \
            param.get("dtype") or param.get("base") in _BYTE_TYPES | {None}:
        return None
    size = _record_size(arg.get("filled_from"))
    if not size or size % 4 == 0:
        return None
    return (None, "%s is filled from NumPy records of %d bytes each, a "
            "packed layout (a structured dtype without align=True); the "
            "compiler pads a struct with an int or float member to a "
            "multiple of 4 bytes, so the kernel reads its fields at other "
            "offsets" % (_param_text(param, i), size), "weak")


_RULES = (("29", _check_29), ("30", _check_30), ("32", _check_32),
          ("16", _check_16))


def _async_finding(rec):
    """(chapter, summary) of a pyasync record, or None."""
    copy = rec.get("copy") or {}
    if rec.get("access") == "read" and copy.get("dir") == "d2h":
        return ("09", "the host read a tensor (%s at %s) that a "
                "non_blocking copy to the host (%s at %s) had not filled "
                "yet: the copy is only queued when the call returns, and "
                "nothing waited for its stream (synchronize(), an event) "
                "before the read" % (rec.get("op"), rec.get("where"),
                                     copy.get("op"), copy.get("where")))
    if rec.get("access") == "write" and copy.get("dir") == "h2d":
        return ("19", "the host wrote into a pinned tensor (%s at %s) that "
                "a queued non_blocking copy to the device (%s at %s) had "
                "not read yet: the copy reads its source only when its turn "
                "on the stream comes" % (rec.get("op"), rec.get("where"),
                                         copy.get("op"), copy.get("where")))
    return None


def async_findings(records):
    """Findings from the pyasync records, one per copy and line."""
    out, seen = [], set()
    for rec in records:
        if not isinstance(rec, dict) or rec.get("ev") != "pyasync":
            continue
        try:
            hit = _async_finding(rec)
        except (TypeError, AttributeError):
            hit = None
        key = hit and (hit[0], rec.get("where"),
                       (rec.get("copy") or {}).get("where"))
        if hit is None or key in seen:
            continue
        seen.add(key)
        copy = rec["copy"]
        out.append({"chapter": hit[0],
                    "summary": hit[1][0].upper() + hit[1][1:] + ".",
                    "evidence": [
                        "py#%s torch %s at %s: %d bytes, %s, on device %s"
                        % (rec.get("n"), copy.get("op"), copy.get("where"),
                           copy.get("bytes") or 0,
                           "device to host" if copy.get("dir") == "d2h"
                           else "host to device", copy.get("device")),
                        "py#%s %s of the host tensor at %s, before the "
                        "copy's stream reached it" % (
                            rec.get("n"), rec.get("op"), rec.get("where"))],
                    "strength": "strong"})
    return out


def findings(records):
    """Findings ({"chapter", "summary", "evidence", "strength"}) from the
    records of the launch check, in the order they first happened; the
    same problem at the same line is one finding, however often it was
    launched."""
    groups = {}
    order = []
    # Record numbers count per process: name the process when there are
    # several.
    with_pid = len(set(r.get("pid") for r in records
                       if isinstance(r, dict))) > 1
    for rec in records:
        if not isinstance(rec, dict) or rec.get("ev") != "pylaunch":
            continue
        params = rec.get("params") or []
        seen = set()
        for i, arg in enumerate(rec.get("args") or []):
            if not isinstance(arg, dict):
                continue
            param = params[i] if i < len(params) and \
                isinstance(params[i], dict) else None
            for chapter, rule in _RULES:
                try:
                    hit = rule(rec, i, arg, param)
                except (TypeError, ValueError, KeyError, AttributeError):
                    hit = None  # a malformed record proves nothing
                if hit is None:
                    continue
                # The same sentence (or the rule's own key) at the same
                # line is one finding.
                key = (chapter, rec.get("kernel"), rec.get("where"),
                       hit[0] or hit[1])
                evidence = "%s: argument %d is %s" % (
                    _record_text(rec, with_pid), i, arg_text(arg))
                if key in seen:
                    # another argument of this launch, same finding
                    if groups[key]["count"] == 0:
                        groups[key]["evidence"].append(evidence)
                    continue
                if key not in groups:
                    groups[key] = {"chapter": chapter, "summary": hit[1],
                                   "evidence": [evidence],
                                   "strength": hit[2] if len(hit) > 2
                                   else "strong", "count": 0}
                    order.append(key)
                seen.add(key)
        for key in seen:
            groups[key]["count"] += 1
    out = async_findings(records)
    for key in order:
        f = groups[key]
        count = f.pop("count")
        if count > 1:
            f["evidence"].append("the same at %d recorded launches" % count)
        f["summary"] = f["summary"][0].upper() + f["summary"][1:] + "."
        out.append(f)
    return out
