"""The parameter list of a __global__ function, read from its CUDA C source.

PyCUDA's SourceModule and CuPy's RawKernel and RawModule keep the source a
kernel was built from, and its signature is the only place the types the
kernel reads are written down: a launch passes bytes and addresses, never
types. This parser reads enough of C to find them: comments, strings and
preprocessor lines are dropped, `extern "C"` (alone or as a block),
`static`, `inline`, `__launch_bounds__(...)` and `__attribute__((...))` are
skipped, and each parameter becomes its type, its name and, where the type
is one numpy names, its dtype. Templates are not resolved: a template
kernel's parameters of a template type get no dtype.
"""

import re

# C type (after qualifiers are dropped, words in a fixed order) -> numpy
# dtype name, for Linux x86-64 and aarch64 (LP64: long is 8 bytes) and
# nvcc (plain char is signed).
C_DTYPES = {
    "char": "int8", "signed char": "int8", "unsigned char": "uint8",
    "short": "int16", "unsigned short": "uint16",
    "int": "int32", "unsigned int": "uint32",
    "long": "int64", "unsigned long": "uint64",
    "long long": "int64", "unsigned long long": "uint64",
    "float": "float32", "double": "float64",
    "half": "float16", "__half": "float16",
    "__nv_bfloat16": "bfloat16", "nv_bfloat16": "bfloat16",
    "bool": "bool",
    "int8_t": "int8", "uint8_t": "uint8", "int16_t": "int16",
    "uint16_t": "uint16", "int32_t": "int32", "uint32_t": "uint32",
    "int64_t": "int64", "uint64_t": "uint64",
    "size_t": "uint64", "ssize_t": "int64", "ptrdiff_t": "int64",
    "intptr_t": "int64", "uintptr_t": "uint64",
    "cuFloatComplex": "complex64", "cuComplex": "complex64",
    "cuDoubleComplex": "complex128",
    "complex<float>": "complex64", "complex<double>": "complex128",
    "thrust::complex<float>": "complex64",
    "thrust::complex<double>": "complex128",
}

# Words that only qualify a parameter; they change nothing the check needs.
_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict",
               "struct", "__grid_constant__", "register", "enum"}
# Words that make up a builtin type name (so a parameter without a name,
# `float *`, is not read as a type `float` named `*`).
_TYPE_WORDS = {"char", "short", "int", "long", "float", "double", "signed",
               "unsigned", "bool", "void", "half", "__half"}
# What may stand between __global__ and the kernel's name.
_SKIP_WORDS = {"void", "static", "inline", "__inline__", "__forceinline__",
               "__noinline__", "extern", "__device__", "__host__"}
_SKIP_CALLS = {"__launch_bounds__", "__attribute__", "__declspec",
               "__maxnreg__", "__cluster_dims__"}

_TOKEN = re.compile(r"""
    (?P<id>[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)
  | (?P<punct>[()<>,*&\[\]=;{}])
  | (?P<other>\S)
""", re.VERBOSE)


def strip_source(source):
    """The source without comments, string and character literals and
    preprocessor lines; line structure is kept."""
    out = []
    i, n = 0, len(source)
    at_line_start = True
    while i < n:
        c = source[i]
        if at_line_start and c == "#":
            # A preprocessor line, with its continuations.
            while i < n and source[i] != "\n":
                if source[i] == "\\" and i + 1 < n and source[i + 1] == "\n":
                    i += 1
                i += 1
            continue
        if c == "/" and source.startswith("//", i):
            while i < n and source[i] != "\n":
                i += 1
            continue
        if c == "/" and source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * source.count("\n", i, end) or " ")
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            out.append(c + c)  # an empty literal keeps `extern "C"` shaped
            i = j + 1
            continue
        out.append(c)
        if c == "\n":
            at_line_start = True
        elif not c.isspace():
            at_line_start = False
        i += 1
    return "".join(out)


def _tokens(text):
    return [(m.group("id") and "id" or m.group("punct") and "punct"
             or "other", re.sub(r"\s+", "", m.group(0)), m.start())
            for m in _TOKEN.finditer(text)]


def _matching(tokens, i, open_, close):
    """Index of the token that closes the bracket at tokens[i]."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j][1] == open_:
            depth += 1
        elif tokens[j][1] == close:
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


def _is_template(text, start):
    """Whether the declaration that holds text[start] opens with
    `template <...>` (looked for since the previous `;`, `{` or `}`)."""
    before = text[:start]
    cut = max(before.rfind(";"), before.rfind("}"), before.rfind("{"))
    return re.search(r"\btemplate\s*<", before[cut + 1:]) is not None


def _split_params(tokens):
    """Splits the tokens between a kernel's parentheses at top-level
    commas."""
    params, current, depth = [], [], 0
    for tok in tokens:
        if tok[1] in "(<[":
            depth += 1
        elif tok[1] in ")>]":
            depth -= 1
        if tok[1] == "," and depth == 0:
            params.append(current)
            current = []
        else:
            current.append(tok)
    if current:
        params.append(current)
    return params


def normalise_type(words):
    """The type name of a list of type words with qualifiers dropped, in
    C_DTYPES' spelling (`long int` -> `long`, `unsigned` -> `unsigned int`,
    `signed` -> `int`)."""
    words = [w for w in words if w not in _QUALIFIERS]
    if not words:
        return ""
    if all(w in _TYPE_WORDS for w in words):
        unsigned = "unsigned" in words
        signed = "signed" in words
        rest = [w for w in words if w not in ("signed", "unsigned")]
        if rest.count("long") >= 2:
            base = "long long"
        elif "long" in rest:
            base = "long"
        elif "short" in rest:
            base = "short"
        elif "char" in rest:
            base = "char"
        elif rest:
            base = " ".join(rest)
        else:
            base = "int"
        if unsigned:
            return "unsigned " + base
        if signed and base == "char":
            return "signed char"
        return base
    name = " ".join(words).replace(" <", "<").replace("< ", "<")
    name = name.replace(" >", ">").replace(" ,", ",")
    return name.replace("std::", "").replace("::cuda::std::", "")


def parse_param(tokens):
    """One parameter's tokens -> {"name", "type", "base", "pointer",
    "dtype"}; dtype is the numpy name of what the parameter points to (a
    pointer) or holds (a value), None when numpy has no name for it."""
    cut = [i for i, t in enumerate(tokens) if t[1] == "="]
    if cut:
        tokens = tokens[:cut[0]]
    depth_ptr = sum(1 for t in tokens if t[1] in ("*", "["))
    reference = any(t[1] == "&" for t in tokens)
    words = []
    depth = 0
    for kind, text, _ in tokens:
        if text == "<":
            depth += 1
        elif text == ">":
            depth -= 1
        if depth > 0 or text in ("<", ">", ","):
            if words:
                words[-1] += text if text in ("<", ">", ",") else text
            continue
        if kind == "id":
            words.append(text)
    # Template arguments were glued onto the word before them above.
    name = None
    significant = [w for w in words if w not in _QUALIFIERS]
    if len(significant) >= 2 and significant[-1] not in _TYPE_WORDS:
        name = significant[-1]
        idx = len(words) - 1 - words[::-1].index(name)
        words = words[:idx] + words[idx + 1:]
    base = normalise_type(words)
    const = "const " if "const" in words else ""
    shown = const + base + (" " + "*" * depth_ptr if depth_ptr else "")
    if reference:
        shown += " &"
    return {"name": name, "type": shown, "base": base,
            "pointer": depth_ptr > 0, "dtype": C_DTYPES.get(base)}


def kernels(source):
    """Every __global__ function of source: {name: {"params": [...],
    "template": bool}}; the first definition of a name wins."""
    text = strip_source(source)
    tokens = _tokens(text)
    found = {}
    i = 0
    while i < len(tokens):
        if tokens[i][1] != "__global__":
            i += 1
            continue
        start = tokens[i][2]
        j = i + 1
        name = None
        while j < len(tokens):
            kind, word, _ = tokens[j]
            if word in _SKIP_CALLS and j + 1 < len(tokens) \
                    and tokens[j + 1][1] == "(":
                j = _matching(tokens, j + 1, "(", ")") + 1
                continue
            if kind == "id" and j + 1 < len(tokens) \
                    and tokens[j + 1][1] == "(" and word not in _SKIP_WORDS:
                name = word.split("::")[-1]
                break
            if word in (";", "{", "}"):
                break
            j += 1
        if name is None:
            i += 1
            continue
        close = _matching(tokens, j + 1, "(", ")")
        inner = tokens[j + 2:close]
        params = [parse_param(p) for p in _split_params(inner)]
        if len(params) == 1 and params[0]["base"] == "void" \
                and not params[0]["pointer"]:
            params = []  # f(void)
        if name not in found:
            found[name] = {"params": params,
                           "template": _is_template(text, start)}
        i = close + 1
    return found


def kernel_params(source, name):
    """The parameter list of kernel name in source, or None when the source
    holds no __global__ function of that name."""
    if not isinstance(source, str) or not isinstance(name, str):
        return None
    info = kernels(source).get(name)
    if info is None:
        return None
    params = info["params"]
    if info["template"]:
        for p in params:
            p["template"] = True
    return params
