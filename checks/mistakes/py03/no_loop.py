"""Exercise py03: a grid-stride loop.

A kernel launched with one thread per element needs a grid as large as the data. A grid-stride
loop lets any grid do any amount of work: each thread starts at its own index in the grid,
cuda.grid(1), and steps by the number of threads in the whole grid, cuda.gridsize(1), until it
passes the end. Neighbouring threads still touch neighbouring elements at every step.

Write `hypot_stride(x, y, out)`: out[i] = math.hypot(x[i], y[i]) for every i. The launch below
is fixed at 32 blocks of 128 threads, 4096 threads, whatever the size of the arrays, and the
check gives arrays far larger than that.
"""

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
    if start < x.size:
        out[start] = math.hypot(x[start], y[start])


device_x = cuda.to_device(x)
device_y = cuda.to_device(y)
device_out = cuda.device_array_like(device_x)

threads_per_block = 128
blocks = (x.size + threads_per_block - 1) // threads_per_block
hypot_stride[blocks, threads_per_block](device_x, device_y, device_out)
task.write("out", device_out.copy_to_host())
