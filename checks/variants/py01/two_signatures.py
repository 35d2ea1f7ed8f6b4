"""py01 variant: two signatures (float32 and float64), the float32 one chosen by the inputs' dtype,
a stream given to the call, the halving as a division."""

import math

import hostkit
import numpy as np
from numba import cuda, vectorize

task = hostkit.Task.open()
x = task.read("x").astype(np.float32)
y = task.read("y").astype(np.float32)


@vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
def scaled_hypot(a, b):
    return math.sqrt(a * a + b * b) / 2


stream = cuda.stream()
out = scaled_hypot(x, y, stream=stream)
stream.synchronize()
task.write("out", np.asarray(out, dtype=np.float32))
