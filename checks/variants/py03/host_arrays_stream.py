"""py03 with a stream, copies on it, and the result copied into a preallocated host array."""
import math

import numpy as np

import hostkit
from numba import cuda

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")


@cuda.jit
def hypot_stride(x, y, out):
    for i in range(cuda.grid(1), len(out), cuda.gridsize(1)):
        out[i] = math.hypot(x[i], y[i])


stream = cuda.stream()
dx = cuda.to_device(x, stream=stream)
dy = cuda.to_device(y, stream=stream)
dout = cuda.device_array_like(dx, stream=stream)
hypot_stride[32, 128, stream](dx, dy, dout)
result = np.empty_like(x)
dout.copy_to_host(result, stream=stream)
stream.synchronize()
task.write("out", result)
