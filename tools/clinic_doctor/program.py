"""What the examined command is: the program it starts, whether that is an
interpreter or a launcher, and the script or source beside it."""

import os
import re
import shutil

from . import CannotExamine

INTERPRETERS = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|bash|sh|env|dash)$")
CUDA_MARKERS = (
    b"__cudaRegisterFatBinary",
    b".nv_fatbin",
    b"libcudart",
    b"libcuda.so",
)


def is_cuda_program(path):
    """True, False, or None (not an ELF file: a script, can't tell)."""
    try:
        with open(path, "rb") as f:
            if f.read(4) != b"\x7fELF":
                return None
            f.seek(0)
            tail = b""
            while True:
                chunk = f.read(1 << 22)
                if not chunk:
                    return False
                block = tail + chunk
                if any(m in block for m in CUDA_MARKERS):
                    return True
                tail = chunk[-64:]
    except OSError:
        return None


def check_program(command):
    """The program path; raises CannotExamine for a missing path, a folder
    or a non-executable file. Whether it uses CUDA is judged from what it
    does (the trace, the sanitizer), not from the binary: a launcher
    (mpirun, make, time) or a program whose kernels live in a shared
    library holds no GPU code itself."""
    name = command[0]
    path = shutil.which(name) if "/" not in name else name
    if not path or not os.path.exists(path):
        raise CannotExamine(f"{name}: no such program")
    if os.path.isdir(path):
        raise CannotExamine(f"{name} is a folder, not a program")
    if not os.access(path, os.X_OK):
        raise CannotExamine(f"{name} is not executable (chmod +x?)")
    return path


def script_of(command):
    """The script a command runs, read for hints like a C program's source:
    the file an interpreter is given (python3 app.py: app.py), or the program
    itself when it is a script (./app.py). None for a compiled program, and
    for python3 -m module or -c code."""
    name = command[0]
    if INTERPRETERS.match(os.path.basename(name)):
        for arg in command[1:]:
            if arg in ("-m", "-c"):
                return None
            if arg.startswith("-") or INTERPRETERS.match(arg):
                continue
            return arg if os.path.isfile(arg) else None
        return None
    if os.path.isfile(name) and is_cuda_program(name) is None:
        return name
    return None


def is_python(command):
    """True for python3 script.py, env python3 ..., or a script whose
    first line names Python."""
    words = [os.path.basename(w) for w in command[:3]]
    if re.match(r"^(python|pypy)", words[0]) or (
            words[0] == "env" and any(re.match(r"^(python|pypy)", w)
                                      for w in words[1:])):
        return True
    script = script_of(command)
    try:
        with open(script or "", "rb") as f:
            return b"python" in f.readline()
    except OSError:
        return False


SOURCE_PATH = re.compile(rb"(/[\w./+-]+\.(?:cu|cuh|cpp|cc|c))\x00")


def own_sources(program_path, limit=64 << 20):
    """The program's own source files: those its binary names (nvcc and
    __FILE__ put the absolute paths in), and those beside it with its name
    (./app next to app.cu). At most eight."""
    found = []
    try:
        with open(program_path, "rb") as f:
            data = f.read(limit)
    except OSError:
        data = b""
    for m in SOURCE_PATH.finditer(data):
        path = m.group(1).decode(errors="replace")
        if path not in found and os.path.isfile(path):
            found.append(path)
    stem = os.path.splitext(program_path)[0]
    for suffix in (".cu", ".cpp", ".cc", ".c", ".py"):
        if os.path.isfile(stem + suffix) and stem + suffix not in found:
            found.append(stem + suffix)
    return found[:8]
