"""py01 variant: @guvectorize for CUDA with a (),()->() layout: the same element-wise work as a
generalised ufunc, the result written through the output argument."""

import math

import hostkit
import numpy as np
from numba import guvectorize

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")


@guvectorize(["void(float32, float32, float32[:])"], "(),()->()", target="cuda")
def scaled_hypot(a, b, out):
    out[0] = math.sqrt(a * a + b * b) * 0.5


out = np.empty_like(x)
scaled_hypot(x, y, out)
task.write("out", out)
