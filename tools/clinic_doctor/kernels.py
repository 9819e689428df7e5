"""A kernel's parameter types from its name, as the trace records it
(mangled, _Z7squaresPii, or demangled, squares(int*, int)): which
parameters are pointers, whether they are const, and the size of the
elements they point to. Only the plain C types are known; anything else
(a struct, a template) is None."""

import re

MANGLED_SIZES = {"b": 1, "c": 1, "a": 1, "h": 1, "s": 2, "t": 2, "i": 4,
                 "j": 4, "f": 4, "l": 8, "m": 8, "x": 8, "y": 8, "d": 8,
                 "Dh": 2}
MANGLED_FLOAT = {"f", "d", "Dh"}
WORD_SIZES = (
    (r"\b(double|long long|unsigned long long|long|unsigned long|"
     r"size_t|int64_t|uint64_t)\b", 8),
    (r"\b(float|int|unsigned int|unsigned|int32_t|uint32_t)\b", 4),
    (r"\b(short|unsigned short|half|__half|int16_t|uint16_t)\b", 2),
    (r"\b(char|signed char|unsigned char|bool|int8_t|uint8_t)\b", 1),
)


def param(pointer, const, size, is_float=False):
    return {"pointer": pointer, "const": const, "size": size,
            "float": is_float}


def mangled_params(name):
    """The parameters of a mangled name _Z<len><name><types>, or None."""
    m = re.match(r"^_Z([0-9]+)", name)
    if not m:
        return None
    rest = name[m.end() + int(m.group(1)):]
    params = []
    while rest:
        pointer = const = False
        while rest[:1] in ("P", "K", "r", "V"):
            pointer = pointer or rest[0] == "P"
            const = const or (rest[0] == "K" and pointer)
            rest = rest[1:]
        code = "Dh" if rest.startswith("Dh") else rest[:1]
        if code in MANGLED_SIZES:
            params.append(param(pointer, const, MANGLED_SIZES[code],
                                code in MANGLED_FLOAT))
            rest = rest[len(code):]
        elif code == "v":
            rest = rest[1:]
        else:
            params.append(param(pointer, const, None))
            break  # a class or substitution: the rest is not read
    return params


def demangled_params(name):
    """The parameters of a demangled name, squares(int*, int), or None."""
    m = re.search(r"\((.*)\)\s*$", name)
    if not m:
        return None
    params = []
    for text in [t.strip() for t in m.group(1).split(",") if t.strip()]:
        pointer = "*" in text
        const = pointer and bool(re.search(r"\bconst\b[^*]*\*", text))
        size = None
        for pattern, bytes_ in WORD_SIZES:
            if re.search(pattern, text) and not re.search(
                    r"\b(struct|class)\b|::|<", text):
                size = bytes_
                break
        params.append(param(pointer, const, size,
                            bool(re.search(r"\b(float|double|half)", text))))
    return params


def signature(call):
    """The parameter list of a launch record's kernel, or None."""
    for key in ("kernel", "kernel_demangled"):
        name = call.get(key) or ""
        found = (mangled_params(name) if name.startswith("_Z")
                 else demangled_params(name))
        if found:
            return found
    return None


def display_name(call):
    return call.get("kernel_demangled") or call.get("kernel") or "a kernel"
