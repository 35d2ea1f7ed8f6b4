"""py01 variant: the ufunc calls a @cuda.jit(device=True) helper for the squares, and writes into
a host array given as out=."""

import math

import hostkit
import numpy as np
from numba import cuda, vectorize

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")


@cuda.jit(device=True)
def square(v):
    return v * v


@vectorize(["float32(float32, float32)"], target="cuda")
def scaled_hypot(a, b):
    return 0.5 * math.sqrt(square(a) + square(b))


out = np.empty_like(x)
scaled_hypot(x, y, out=out)
task.write("out", out)
