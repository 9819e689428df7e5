from cupy.cuda import runtime  # noqa: F401
