"""Run by Python at start-up for every program the course runs (this folder is on PYTHONPATH).

Numba's kernels keep their source lines (``lineinfo=True``) without the student asking for them,
so that the simulator's reports of a race, an access out of bounds or a costly line name the line
of the student's own file, as they do for a CUDA C kernel. ``lineinfo`` adds line tables to the
PTX and leaves the code as it was; a kernel that asks for ``debug=True`` keeps it (the two
exclude each other). Numba is patched as it is imported, so a program that never imports it pays
nothing.

cuda.core's Linker, on the driver's cuLink* (its only linker where nvJitLink is not installed, as
in the course's environment, which Numba uses for every kernel it loads), hands the driver two
log buffers of 4 MiB per link and decodes and strips both whole afterwards: 0.2-0.26 s a link,
more than the simulator spends on a small kernel and a fifth of a Python check. The buffers are
64 KiB here, far more than any log the course's driver writes (and a GPU's for one module).
"""

import functools
import importlib.abc
import importlib.util
import re
import sys
import warnings

# Numba warns that it "could not find source" for the kernels it writes itself (a @vectorize
# ufunc's), once line information is on: the course turned it on, not the student, and the
# student's own lines are unaffected.
warnings.filterwarnings("ignore", message="Could not find source for function")

# The module that defines `numba.cuda.jit`, under either name numba-cuda installs it.
_DECORATORS = ("numba.cuda.decorators", "numba_cuda.numba.cuda.decorators")
# The module that defines cuda.core's LinkerOptions, in its current and its earlier place.
_LINKERS = ("cuda.core._linker", "cuda.core.experimental._linker")
# The size of each log buffer a link through the driver's cuLink* is given.
LINK_LOG_BYTES = 64 << 10


def _with_line_info(jit):
    @functools.wraps(jit)
    def jit_with_line_info(*args, **kwargs):
        if not kwargs.get("debug"):
            kwargs.setdefault("lineinfo", True)
        return jit(*args, **kwargs)

    return jit_with_line_info


def _with_small_link_logs(prepare):
    """LinkerOptions._prepare_driver_options with each log buffer LINK_LOG_BYTES long; the options
    are matched by name, so a cuda.core that lays them out otherwise keeps its own."""

    @functools.wraps(prepare)
    def prepare_with_small_logs(self):
        values, keys = prepare(self)
        for place, key in enumerate(keys):
            name = getattr(key, "name", "")
            if name in ("CU_JIT_INFO_LOG_BUFFER", "CU_JIT_ERROR_LOG_BUFFER"):
                values[place] = bytearray(LINK_LOG_BYTES)
            elif name.endswith("_LOG_BUFFER_SIZE_BYTES"):
                values[place] = LINK_LOG_BYTES
        return values, keys

    return prepare_with_small_logs


def _patch_decorators(module):
    if hasattr(module, "jit"):
        module.jit = _with_line_info(module.jit)


def _patch_linker(module):
    options = getattr(module, "LinkerOptions", None)
    if hasattr(options, "_prepare_driver_options"):
        options._prepare_driver_options = _with_small_link_logs(options._prepare_driver_options)


# What to do to each module once it has run, by name.
_PATCHES = {
    **{name: _patch_decorators for name in _DECORATORS},
    **{name: _patch_linker for name in _LINKERS},
}


class _PatchingFinder(importlib.abc.MetaPathFinder):
    """Finds a module of _PATCHES as the other finders do, then patches it once it has run
    (Numba's decorators before `numba.cuda` binds `jit` as `cuda.jit`)."""

    def find_spec(self, name, path, target=None):
        patch = _PATCHES.get(name)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _PatchingLoader(spec.loader, patch)
                return spec
        return None


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, loader, patch):
        self._loader = loader
        self._patch = patch

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._patch(module)


sys.meta_path.insert(0, _PatchingFinder())


# What a program that stops on an exception leaves at the end of its output, which is what a
# check shows: Python's traceback ends in Numba's compiler, far from the student's code, and
# Numba's message does not always say which line it could not compile.
_LIBRARIES = ("site-packages", "dist-packages", "/hostkit/python/", "<frozen ")


def _own_frame(tb):
    """The innermost frame of the traceback in the student's own code, not a library's."""
    own = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if _is_own(filename):
            own = (filename, tb.tb_lineno)
        tb = tb.tb_next
    return own


def _is_own(filename):
    # A compiled extension's frame (cuda.core's "cuda/core/_utils/cuda_utils.pyx") names a source
    # that is not on disk here: only a file that exists can be the student's.
    import os

    return (
        bool(filename)
        and not any(part in filename for part in _LIBRARIES)
        and os.path.isfile(filename)
    )


def _compiled_line(value, tb):
    """The line of the student's kernel Numba was compiling when it failed: the error's own
    location where it kept one, else the location of the statement one of Numba's frames was
    typing or lowering (its `inst`, `expr` or `loc`), innermost first."""
    loc = getattr(value, "loc", None)
    if _is_own(getattr(loc, "filename", None)) and getattr(loc, "line", None):
        return loc.filename, loc.line
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        for name in ("inst", "expr", "stmt", "loc"):
            held = frame.f_locals.get(name)
            loc = held if name == "loc" else getattr(held, "loc", None)
            filename = getattr(loc, "filename", None)
            line = getattr(loc, "line", None)
            if _is_own(filename) and isinstance(line, int):
                return filename, line
    return None


def _where(filename, line):
    import linecache
    import os

    text = linecache.getline(filename, line).strip()
    # The course's path of the file where the program runs inside the course.
    shown = os.path.relpath(filename) if filename.startswith(os.getcwd() + os.sep) else filename
    return f"{shown}, line {line}" + (f": {text}" if text else "")


# Lines of a Numba typing error that say how Numba searched, not what it found: left out, so that
# the lines that explain (the call's types, `>>> hypot(float32, array(float32, 1d, C))`, and the
# types it takes) fit the few lines a check shows.
_SEARCH_LINES = re.compile(
    r"^(Failed in |During: |There (are|is) \d+ candidate|- Of which |With argument|No match"
    r"|.*: File: .*: Line |Rewrite |Note that )"
)


def _what(value):
    """The exception's message in one line: its first three lines that say what was wrong (not
    how Numba searched, nor the source excerpt it ends with, which the line before gives), and
    the types a function takes, where Numba lists them."""
    lines = []
    takes = []
    for line in str(value).splitlines():
        line = line.strip()
        if line.startswith("File ") or line == "<source elided>":
            break
        if line.startswith("* ") and "->" in line:
            takes.append(line[2:])
        elif line and not _SEARCH_LINES.match(line):
            lines.append(line)
    said = lines[:3]
    if takes:
        said.append("it takes " + ", ".join(takes))
    return f"{type(value).__name__}: " + " / ".join(said)


def _defined(tb):
    """Where the kernel Numba was compiling for a call is defined, as its name and _where's
    place: a launch that fails before Numba reaches the kernel's lines (its arguments do not fit
    its parameters) is explained by the kernel's `def`, not by Numba's frames."""
    import inspect

    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    # Library frames only: the student's own module frame holds every kernel it defines.
    library = [f for f in frames if not _is_own(f.f_code.co_filename)]
    for frame in reversed(library):
        for held in list(frame.f_locals.values()):
            function = getattr(held, "py_func", None)
            code = getattr(function, "__code__", None)
            if code is not None and _is_own(code.co_filename):
                line = code.co_firstlineno
                try:
                    # The `def` line, after the decorators that start the function's source.
                    source, line = inspect.getsourcelines(function)
                    line += next(i for i, l in enumerate(source) if l.lstrip().startswith("def "))
                except (OSError, StopIteration):
                    pass
                return function.__name__, _where(code.co_filename, line)
    return None


def _from_numba(kind):
    return any(k.__module__.startswith(("numba.", "numba_cuda.")) for k in kind.__mro__)


def _summing_up_hook(kind, value, tb):
    _python_hook(kind, value, tb)
    if kind is KeyboardInterrupt:
        return
    compiled = _compiled_line(value, tb) if _from_numba(kind) else None
    defined = None
    if compiled is not None:
        said = f"Numba could not compile the kernel at {_where(*compiled)}"
    else:
        own = _own_frame(tb)
        if own is None:
            return
        said = f"the program stopped at {_where(*own)}"
        defined = _defined(tb)
    print(f"\n{said}\n  {_what(value)}", file=sys.stderr)
    if defined is not None:
        name, where = defined
        print(f"  {name} is defined at {where}", file=sys.stderr)


_python_hook = sys.excepthook
sys.excepthook = _summing_up_hook
