"""An exception that ends the program and is not CUDA's (as a library that
fails at import raises): a pyerror record."""
import cupy  # noqa: F401


def load():
    raise AttributeError("module 'numpy' has no attribute 'row_stack'")


load()
