"""Runs one Python program on several test cases in one interpreter, as if each were a process
of its own: `runner check` starts it once per check instead of once per case, so Python's start
and Numba's import (about 0.8 s of CPU) are paid once.

    python -c "import hostkit_cases; hostkit_cases.main()" PROGRAM CASE_DIR...

(imported, not run as a script, so that `__main__` is free for the program). For each case, in
order, the program runs as `python PROGRAM` would run it (in the `__main__` module, its own
folder first on the module path, its traceback and exit code as Python gives them), with
HOSTKIT_CASE naming the case's folder and its output going to `stdout.txt` and `stderr.txt`
there. When it ends, the course's driver hands its record of the case to `record.json` there
(`simcudaCutRecord`), and `exit.txt` says how the program ended. A case gets the CPU time the
runner gave the first (the limit is raised before each case by what the case may use).

A case that cannot end here as it would in a process of its own (it ended the interpreter, left
a thread running, or registered a function to run at exit) leaves no `exit.txt`: the runner runs
it again alone. Where something of the case stays behind in the driver (a fault, a copy still in
flight, a stream), this stops after it, and the runner starts the next case afresh.
"""

import atexit
import builtins
import ctypes
import gc
import importlib.machinery
import os
import resource
import sys
import threading
import warnings

# What each case's folder holds, besides its inputs and outputs (as runner/src/host/execute
# reads them).
STARTED = "started"
EXIT = "exit.txt"
RECORD = "record.json"
OUTPUT = ("stdout.txt", "stderr.txt")


def main():
    program, cases = sys.argv[1], sys.argv[2:]
    budget, hard = resource.getrlimit(resource.RLIMIT_CPU)
    runner = os.getpid()
    for number, folder in enumerate(cases):
        if number > 0:
            _allow_cpu(budget, hard)
        open(os.path.join(folder, STARTED), "w").close()
        ending = _run_alone_in_effect(program, folder)
        if os.getpid() != runner:
            # A process the program forked, at the program's end: it ends there, as it would.
            _flush()
            os._exit(ending or 0)
        if ending is None:
            # Not as a process of its own would have ended: the runner runs it again alone.
            os._exit(0)
        record = os.fsencode(os.path.join(folder, RECORD))
        if _driver_call("simcudaCutRecord", ctypes.c_char_p(record)) == -1:
            os._exit(0)  # no record of the case here: the runner runs it alone
        _write(os.path.join(folder, EXIT), str(ending))
        _forget_the_case()
        if not _start_afresh():
            return


def _run_alone_in_effect(program, folder):
    """Runs the program on the case in `folder`; its exit code, or None where the case left
    something a process of its own would have finished at exit."""
    saved = (dict(os.environ), os.getcwd(), list(sys.path), list(warnings.filters))
    modules = dict(sys.modules)
    threads = set(threading.enumerate())
    exits = _OwnExitFunctions(program)
    os.environ["HOSTKIT_CASE"] = folder
    sys.argv = [program]
    sys.path[0] = os.path.dirname(os.path.abspath(program))
    # Warnings shown once per place are shown again, as in a new process.
    getattr(warnings, "_filters_mutated", lambda: None)()
    with _output_to(folder), exits:
        code = _exit_code(program)
    os.environ.clear()
    os.environ.update(saved[0])
    os.chdir(saved[1])
    sys.path[:] = saved[2]
    warnings.filters[:] = saved[3]
    _forget_the_program(program, modules)
    left = [t for t in threading.enumerate() if t not in threads and not t.daemon]
    if left or exits.registered:
        return None
    return code


class _OwnExitFunctions:
    """Notes whether the program's own code registers a function to run at exit while it runs
    (a library's, such as Numba's at its import, runs at the end of this process as it would at
    the end of the program's own)."""

    def __init__(self, program):
        self.program = program
        self.registered = False

    def __enter__(self):
        self.register = atexit.register

        def register(function, *args, **kwargs):
            if sys._getframe(1).f_code.co_filename == self.program:
                self.registered = True
            return self.register(function, *args, **kwargs)

        atexit.register = register

    def __exit__(self, *_):
        atexit.register = self.register


def _forget_the_case():
    """Lets the program's objects go, and with them what they hold in the driver (freed after
    the case's record was cut, as a process's are freed after the driver writes its record)."""
    namespace = sys.modules["__main__"].__dict__
    namespace.clear()
    namespace.update(__name__="__main__", __builtins__=builtins)
    sys.last_type = sys.last_value = sys.last_traceback = None


def _forget_the_program(program, before):
    """Takes a module of the program's file out of sys.modules (where it imported itself by
    name), so that the next case imports it afresh and what it holds goes."""
    path = os.path.abspath(program)
    for name, module in list(sys.modules.items()):
        if os.path.abspath(getattr(module, "__file__", None) or "/") != path:
            continue
        if name in before:
            sys.modules[name] = before[name]
        else:
            del sys.modules[name]


def _exit_code(program):
    """Runs `program` in the `__main__` module, as Python runs a script (modules that import
    `__main__` then hold that one module, and clearing it after the case frees what the program
    made); what Python's exit status would be, the traceback of an exception shown as Python
    shows it (through sys.excepthook, from the program's own frame)."""
    namespace = sys.modules["__main__"].__dict__
    namespace.clear()
    namespace.update(
        __name__="__main__",
        __file__=program,
        __builtins__=builtins,
        __loader__=importlib.machinery.SourceFileLoader("__main__", program),
        __spec__=None,
        __cached__=None,
        __doc__=None,
        __package__=None,
    )
    try:
        with open(program, "rb") as file:
            code = compile(file.read(), program, "exec")
        exec(code, namespace)
        return 0
    except SystemExit as stop:
        return _status(stop.code)
    except BaseException as error:  # everything Python itself would report and exit 1 on
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != program:
            tb = tb.tb_next
        sys.excepthook(type(error), error, tb or error.__traceback__)
        return 1


def _status(code):
    """The exit status `sys.exit(code)` gives, as Python's own exit handles it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


class _output_to:
    """The process's stdout and stderr (Python's and the C library's) sent to the case's files."""

    def __init__(self, folder):
        self.paths = [os.path.join(folder, name) for name in OUTPUT]

    def __enter__(self):
        _flush()
        self.own = [os.dup(fd) for fd in (1, 2)]
        for fd, path in zip((1, 2), self.paths):
            target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(target, fd)
            os.close(target)

    def __exit__(self, *_):
        # What is said between cases (and at this process's exit) is no case's.
        _flush()
        for fd, own in zip((1, 2), self.own):
            os.dup2(own, fd)
            os.close(own)


def _flush():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    ctypes.CDLL(None).fflush(None)


def _allow_cpu(budget, hard):
    """The CPU limit raised so that the next case may use `budget` seconds from now."""
    if budget == resource.RLIM_INFINITY:
        return
    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(used.ru_utime + used.ru_stime) + budget
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _start_afresh():
    """Frees what the last case left (Numba frees device memory, streams and modules lazily) and
    asks the driver to start as a new process would; False where something of the case stays."""
    # Numba keeps its last launch configurations (a kernel, its grid and its stream) in a cache
    # of its own, which would keep the program's streams.
    for name in ("numba.cuda.dispatcher", "numba_cuda.numba.cuda.dispatcher"):
        dispatcher = getattr(sys.modules.get(name), "CUDADispatcher", None)
        getattr(getattr(dispatcher, "configure", None), "cache_clear", lambda: None)()
    gc.collect()
    for name in ("numba.cuda.cudadrv.devices", "numba_cuda.numba.cuda.cudadrv.devices"):
        devices = sys.modules.get(name)
        if devices is not None:
            _flush_numba(devices)
            break
    # None: the program never loaded the driver, so nothing of it stays.
    return _driver_call("simcudaStartAfresh") != 0


def _flush_numba(devices):
    lst = getattr(type(devices.gpus), "lst", None)
    cached = getattr(getattr(lst, "fget", None), "cache_info", None)
    # Only devices Numba has already listed: listing them would call the driver.
    if cached is None or cached().currsize == 0:
        return
    for gpu in devices.gpus:
        context = getattr(gpu, "primary_context", None)
        if context is not None:
            context.deallocations.clear()


def _driver_call(name, *args):
    """Calls the course's driver's `name`, if the program loaded it; None where it did not (or
    loaded another driver, which has no such call)."""
    try:
        driver = ctypes.CDLL("libcuda.so.1", mode=os.RTLD_NOLOAD)
        function = getattr(driver, name)
    except (OSError, AttributeError):
        return None
    function.restype = ctypes.c_int
    return function(*args)


def _write(path, text):
    with open(path, "w") as file:
        file.write(text)
