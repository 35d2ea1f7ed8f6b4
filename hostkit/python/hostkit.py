"""What a host exercise's Python program gets from the course: the inputs of one test case, and
a place to put its outputs (the same contract as the Rust crate beside this folder).

`runner check` writes each case into a folder (HOSTKIT_CASE): one file per input array, raw
little-endian elements (`x.f32`, `states.u64`), and `params.txt` with a `name = value` line per
number. The program reads them through Task, does its work on the GPU, and hands its results back
with Task.write; the runner compares them with its CPU reference.
"""

import ctypes
import os
from pathlib import Path

import numpy as np

CASE_VARIABLE = "HOSTKIT_CASE"

# The element types the course's arrays come in, by file extension.
_DTYPES = {
    "f32": np.dtype("<f4"),
    "f64": np.dtype("<f8"),
    "i32": np.dtype("<i4"),
    "u32": np.dtype("<u4"),
    "u64": np.dtype("<u8"),
    "u8": np.dtype("u1"),
}


class Task:
    """One test case: its numbers and the folder its arrays are in."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.params = {}
        for line in (self.folder / "params.txt").read_text().splitlines():
            if "=" in line:
                name, value = line.split("=", 1)
                self.params[name.strip()] = value.strip()

    @staticmethod
    def open():
        """The case `runner check` prepared."""
        folder = os.environ.get(CASE_VARIABLE)
        if folder is None:
            raise SystemExit(
                "this program reads its inputs from the course: run it with `runner check ID` "
                f"(which prepares each test case and checks the results); {CASE_VARIABLE} is not set"
            )
        return Task(folder)

    def param(self, name):
        """A whole number of the case (n, steps, seed)."""
        return int(self._value(name))

    def real(self, name):
        """A real number of the case (alpha)."""
        return float(self._value(name))

    def read(self, name, kind="f32"):
        """An input array, as a NumPy array of the kind's type (f32, f64, i32, u32, u64, u8)."""
        return np.fromfile(self.folder / f"{name}.{kind}", dtype=_DTYPES[kind])

    def write(self, name, values, kind="f32"):
        """Hands back an output array for the runner to check."""
        in_flight = _bytes_in_flight(values)
        if in_flight:
            # Read before the copy into it was waited for: the runner names the mistake.
            (self.folder / f"out_{name}.in_flight").write_text(str(in_flight))
        array = np.ascontiguousarray(np.asarray(values), dtype=_DTYPES[kind])
        array.tofile(self.folder / f"out_{name}.{kind}")

    def _value(self, name):
        if name not in self.params:
            raise KeyError(f"the case has no number called {name!r}")
        return self.params[name]


def _bytes_in_flight(values):
    """How many bytes of `values` still wait for an asynchronous copy from the device, as the
    course's driver knows (0 on any other driver, or for anything but a NumPy array)."""
    if not isinstance(values, np.ndarray) or values.nbytes == 0:
        return 0
    try:
        driver = ctypes.CDLL("libcuda.so.1", mode=os.RTLD_NOLOAD)
        ask = driver.simcudaBytesInFlight
    except (OSError, AttributeError):
        return 0
    ask.restype = ctypes.c_size_t
    ask.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    return ask(values.ctypes.data, values.nbytes)
