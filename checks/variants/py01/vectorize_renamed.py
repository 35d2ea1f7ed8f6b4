"""py01 variant: the scalar function written under another name (half_hypot) and made the
scaled_hypot ufunc by calling vectorize on it: its kernel is __vectorized_half_hypot."""

import math

import hostkit
from numba import vectorize

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")


def half_hypot(a, b):
    return math.sqrt(a * a + b * b) * 0.5


scaled_hypot = vectorize(["float32(float32, float32)"], target="cuda")(half_hypot)
task.write("out", scaled_hypot(x, y))
