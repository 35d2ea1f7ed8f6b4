"""py01 mistake: the signature given as int32(int32, int32): the ufunc has no loop for float32 inputs."""

import math

import hostkit
from numba import vectorize

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")


# TODO: decorate this with @vectorize, giving the signature ['float32(float32, float32)'] and
# target='cuda'; without it, it is a plain Python function of two numbers.
@vectorize(["int32(int32, int32)"], target="cuda")
def scaled_hypot(a, b):
    # TODO: return the square root of a*a + b*b, halved (math.sqrt).
    return math.sqrt(a * a + b * b) * 0.5
    return a


out = scaled_hypot(x, y)
task.write("out", out)
