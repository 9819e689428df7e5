"""A library that fails while it is imported (as numba 0.68 does with numpy
2.5)."""
import numpy

numpy.row_stack
