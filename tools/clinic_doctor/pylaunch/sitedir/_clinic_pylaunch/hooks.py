"""Run a function right after a module is first imported, and only then.

A finder placed first in sys.meta_path asks the other finders for the spec
of a watched module and returns it with a loader that runs the module as
its own loader would, then calls the hook with the module. The module's
own loader is put back on the module before the hook runs, so nothing
that reads __loader__ or __spec__ later sees this one. Nothing is imported
that the program does not import itself. A module already imported when
the hooks are installed gets its hook at once.
"""

import sys
import threading


class _Loader:
    """Stands in for a module's loader during its first execution."""

    def __init__(self, loader, hook, on_error):
        self._loader = loader
        self._hook = hook
        self._on_error = on_error

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module):
        try:
            self._loader.exec_module(module)
        except BaseException as e:
            self._restore(module)
            # Not our frame in the traceback: it holds the module's own.
            e.__traceback__ = e.__traceback__.tb_next
            raise
        self._restore(module)
        self._call_hook(module)

    def load_module(self, name):  # loaders from before Python 3.4
        module = self._loader.load_module(name)
        self._restore(module)
        self._call_hook(module)
        return module

    def _restore(self, module):
        try:
            spec = getattr(module, "__spec__", None)
            if spec is not None and spec.loader is self:
                spec.loader = self._loader
            if getattr(module, "__loader__", None) is self:
                module.__loader__ = self._loader
        except Exception:
            self._on_error()

    def _call_hook(self, module):
        try:
            self._hook(module)
        except Exception:
            self._on_error()


class PostImportFinder:
    """A sys.meta_path finder that finds nothing itself."""

    def __init__(self, hooks, on_error):
        self.hooks = dict(hooks)   # module name -> hook(module)
        self.on_error = on_error
        self._busy = threading.local()

    def find_spec(self, name, path=None, target=None):
        if name not in self.hooks or getattr(self._busy, "on", False):
            return None
        self._busy.on = True
        try:
            spec = None
            for finder in list(sys.meta_path):
                if finder is self:
                    continue
                find = getattr(finder, "find_spec", None)
                if find is None:
                    continue
                spec = find(name, path, target)
                if spec is not None:
                    break
        except Exception:
            self.on_error()
            return None  # let the import system look again, as usual
        finally:
            self._busy.on = False
        if spec is None or spec.loader is None or \
                not hasattr(spec.loader, "exec_module"):
            return spec
        hook = self.hooks[name]  # patches are idempotent: kept for reloads
        spec.loader = _Loader(spec.loader, hook, self.on_error)
        return spec

    # Python's import system asks for this on some paths.
    def invalidate_caches(self):
        pass


def install(hooks, on_error):
    """hooks: {module name: function(module)}. Modules already imported
    are hooked now; the others when they are."""
    pending = {}
    for name, hook in hooks.items():
        module = sys.modules.get(name)
        if module is not None:
            try:
                hook(module)
            except Exception:
                on_error()
        else:
            pending[name] = hook
    finder = PostImportFinder(pending, on_error)
    sys.meta_path.insert(0, finder)
    return finder
