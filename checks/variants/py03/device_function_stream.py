"""py03 variant: the element's work in a @cuda.jit(device=True) function, the loop's bound the
array's shape[0], the arrays on a stream, the output from cuda.device_array with x's dtype."""

import math

import hostkit
from numba import cuda

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")


@cuda.jit(device=True)
def norm(a, b):
    return math.hypot(a, b)


@cuda.jit
def hypot_stride(x, y, out):
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        out[i] = norm(x[i], y[i])


stream = cuda.stream()
device_x = cuda.to_device(x, stream=stream)
device_y = cuda.to_device(y, stream=stream)
device_out = cuda.device_array(x.shape, dtype=x.dtype, stream=stream)
hypot_stride[32, 128, stream](device_x, device_y, device_out)
out = device_out.copy_to_host(stream=stream)
stream.synchronize()
task.write("out", out)
