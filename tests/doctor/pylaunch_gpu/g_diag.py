"""Which libraries the check wrapped here (run with the check only)."""
import sys

import cupy  # noqa: F401
import pycuda.driver  # noqa: F401
import pycuda.compiler  # noqa: F401
import torch  # noqa: F401
from numba import cuda  # noqa: F401

check = sys.modules["_clinic_pylaunch"].CHECK
print("wrapped:", check.trace.libs)
print("failures:", check.trace.failures)
print("dispatcher:", sys.modules.get("numba.cuda.dispatcher"))
print("meta_path:", [type(f).__name__ for f in sys.meta_path])
print("sitecustomize:", sys.modules["sitecustomize"].__file__)
