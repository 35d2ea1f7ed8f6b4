"""py03 mistake: the kernel launched with two arguments of its three (the output left out)."""

import math

import hostkit
from numba import cuda

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")


@cuda.jit
def hypot_stride(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    # TODO: each thread handles elements start, start + stride, start + 2 * stride, ... while
    # inside the arrays (range() takes a start, a stop and a step).
    for i in range(start, x.size, stride):
        out[i] = math.hypot(x[i], y[i])


device_x = cuda.to_device(x)
device_y = cuda.to_device(y)
device_out = cuda.device_array_like(device_x)

blocks, threads_per_block = 32, 128
hypot_stride[blocks, threads_per_block](device_x, device_out)
task.write("out", device_out.copy_to_host())
