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
    """The program path; raises CannotExamine for a missing path, a
    non-executable file, or an ELF program with no CUDA in it."""
    name = command[0]
    path = shutil.which(name) if "/" not in name else name
    if not path or not os.path.exists(path):
        raise CannotExamine(f"{name}: no such program")
    if os.path.isdir(path):
        raise CannotExamine(f"{name} is a folder, not a program")
    if not os.access(path, os.X_OK):
        raise CannotExamine(f"{name} is not executable (chmod +x?)")
    if INTERPRETERS.match(os.path.basename(path)):
        return path
    if is_cuda_program(path) is False:
        raise CannotExamine(
            f"{name} is not a CUDA program: it holds no GPU code and does "
            "not link the CUDA runtime"
        )
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
