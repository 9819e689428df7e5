"""The clinic doctor's launch check: started by Python itself at start-up.

The doctor puts this folder first on PYTHONPATH and sets CLINIC_TRACE_DIR;
Python imports sitecustomize at start-up, so the check is in place before
the program's first line, with nothing to install. Without CLINIC_TRACE_DIR
it does nothing. Either way the sitecustomize this one hides (a
distribution's or a virtual environment's, further along sys.path) is run
afterwards, as Python would have run it.
"""


def _start():
    import os
    folder = os.environ.get("CLINIC_TRACE_DIR")
    if not folder:
        return
    try:
        import _clinic_pylaunch
        _clinic_pylaunch.install(folder)
    except Exception:
        pass  # the program runs as it would without the check


def _chain():
    """Runs the next sitecustomize on sys.path, if there is one."""
    import importlib.machinery
    import importlib.util
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path
            if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_start()
_chain()
