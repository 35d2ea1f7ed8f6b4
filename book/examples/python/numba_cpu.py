"""Numba as a CPU compiler: @njit, type specialisation and the first call's compile time, what
nopython mode refuses and object mode allows, and a CPU ufunc with @vectorize. Runs on the CPU
alone, with the course's CUDA Python environment or any Python with Numba and NumPy:

    .cuda-python/bin/python book/examples/python/numba_cpu.py
"""
import time

import numpy as np
from numba import float32, float64, jit, njit, vectorize
from numba.core.errors import TypingError


# ANCHOR: njit
@njit
def total(a):
    s = 0.0
    for x in a:
        s += x
    return s


a64 = np.arange(1_000_000, dtype=np.float64)
for label, array in [("float64, first call", a64), ("float64, again", a64),
                     ("float32, first call", a64.astype(np.float32))]:
    start = time.perf_counter()
    total(array)
    print(f"{label:20} {(time.perf_counter() - start) * 1e3:8.2f} ms")
start = time.perf_counter()
total.py_func(a64)    # the same function, undecorated: run by the interpreter
print(f"{'the interpreter':20} {(time.perf_counter() - start) * 1e3:8.2f} ms")
print("compiled for:", total.signatures)
# ANCHOR_END: njit


# ANCHOR: modes
class Point:
    def __init__(self, x):
        self.x = x


@jit                  # nopython mode: the default of @jit since Numba 0.59
def get_x(p):
    return p.x


try:
    get_x(Point(1.0))
except TypingError as error:
    print("nopython mode refuses it:", str(error).splitlines()[0])


@jit(forceobj=True)   # object mode: every value a Python object, run through the interpreter's API
def get_x_object(p):
    return p.x


print("object mode runs it:", get_x_object(Point(1.0)))
# ANCHOR_END: modes


# ANCHOR: vectorize
@vectorize([float32(float32, float32), float64(float64, float64)])
def rel_diff(x, y):
    return 2 * (x - y) / (x + y)


x = np.array([1.0, 2.0, 4.0], dtype=np.float32)
y = np.array([2.0, 2.0, 2.0], dtype=np.float32)
print("rel_diff:", rel_diff(x, y), rel_diff(x, y).dtype)
print("broadcast over a 2D array and a scalar:", rel_diff(np.ones((2, 2)), 3.0).tolist())
# ANCHOR_END: vectorize
