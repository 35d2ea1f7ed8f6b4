"""py02 variant: the host arrays pinned for the copies (with cuda.pinned(...)), an empty device y
from device_array_like filled by copy_to_device on a stream, every launch on that stream, the
result into a pinned array from cuda.pinned_array."""

import hostkit
import numpy as np
from numba import cuda

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")
steps = task.param("steps")


@cuda.jit
def step(y, x):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= y.size:
        return
    y[i] = y[i] * 0.5 + x[i]


stream = cuda.stream()
result = cuda.pinned_array(y.shape, dtype=np.float32)
with cuda.pinned(x, y):
    d_x = cuda.to_device(x, stream=stream)
    d_y = cuda.device_array_like(y, stream=stream)
    d_y.copy_to_device(y, stream=stream)
    per_block = 64
    blocks = (y.size + per_block - 1) // per_block
    for _ in range(steps):
        step[blocks, per_block, stream](d_y, d_x)
    d_y.copy_to_host(result, stream=stream)
    stream.synchronize()
task.write("y", np.array(result))
