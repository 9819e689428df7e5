"""A watched library that fails at import: its traceback must print as it
would without the check, and a pyerror record is written."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "broken_lib"))
import cupy  # noqa: E402,F401
