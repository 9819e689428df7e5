"""Imports none of the libraries: the check must import none either."""
import sys

print(sorted(m for m in ("cupy", "pycuda", "numba", "torch", "numpy")
             if m in sys.modules))
