"""A py01 variant: the signature as Numba type objects (float32(float32, float32)) and math.hypot halved.

Exercise py01: a ufunc on the GPU.

A NumPy ufunc applies a scalar function to every element of its arrays. Numba's @vectorize
compiles a scalar Python function into one: with target='cuda' the function runs on the GPU,
one thread per element, and Numba copies the arrays there and back for you.

Write `scaled_hypot(a, b)` = sqrt(a*a + b*b) / 2 as a float32 GPU ufunc, and apply it to x and y.
`runner check py01` runs this program on each case through the simulator's CUDA driver (or your
GPU) and checks the result, and shows the copies Numba made.
"""

import math

import hostkit
from numba import float32, vectorize

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")


# TODO: decorate this with @vectorize, giving the signature ['float32(float32, float32)'] and
# target='cuda'; without it, it is a plain Python function of two numbers.
@vectorize([float32(float32, float32)], target="cuda")
def scaled_hypot(a, b):
    # TODO: return the square root of a*a + b*b, halved (math.sqrt).
    return math.hypot(a, b) / 2
    return a


out = scaled_hypot(x, y)
task.write("out", out)
