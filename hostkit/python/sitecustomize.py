"""Run by Python at start-up for every program the course runs (this folder is on PYTHONPATH).

Numba's kernels keep their source lines (``lineinfo=True``) without the student asking for them,
so that the simulator's reports of a race, an access out of bounds or a costly line name the line
of the student's own file, as they do for a CUDA C kernel. ``lineinfo`` adds line tables to the
PTX and leaves the code as it was; a kernel that asks for ``debug=True`` keeps it (the two
exclude each other). Numba is patched as it is imported, so a program that never imports it pays
nothing.
"""

import functools
import importlib.abc
import importlib.util
import sys

# The module that defines `numba.cuda.jit`, under either name numba-cuda installs it.
_DECORATORS = ("numba.cuda.decorators", "numba_cuda.numba.cuda.decorators")


def _with_line_info(jit):
    @functools.wraps(jit)
    def jit_with_line_info(*args, **kwargs):
        if not kwargs.get("debug"):
            kwargs.setdefault("lineinfo", True)
        return jit(*args, **kwargs)

    return jit_with_line_info


class _LineInfoFinder(importlib.abc.MetaPathFinder):
    """Finds the decorators module as the other finders do, then patches `jit` once it has run
    (before `numba.cuda` binds it as `cuda.jit`)."""

    def find_spec(self, name, path, target=None):
        if name not in _DECORATORS:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        if hasattr(module, "jit"):
            module.jit = _with_line_info(module.jit)


sys.meta_path.insert(0, _LineInfoFinder())
