"""py01 variant: the ufunc called on device arrays, with a device output array given as out=."""

import math

import hostkit
import numpy as np
from numba import cuda, vectorize

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")


@vectorize(["float32(float32, float32)"], target="cuda")
def scaled_hypot(a, b):
    return 0.5 * math.hypot(a, b)


d_x = cuda.to_device(x)
d_y = cuda.to_device(y)
d_out = cuda.device_array(x.shape, dtype=np.float32)
scaled_hypot(d_x, d_y, out=d_out)
task.write("out", d_out.copy_to_host())
