"""py02 variant: y's device copy made with device_array_like and copy_to_device, a grid-stride
kernel on a fixed grid of 40 blocks, cuda.synchronize() after the loop."""

import hostkit
from numba import cuda

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")
steps = task.param("steps")


@cuda.jit
def step(y, x):
    for i in range(cuda.grid(1), y.size, cuda.gridsize(1)):
        y[i] = 0.5 * y[i] + x[i]


device_x = cuda.to_device(x)
device_y = cuda.device_array_like(y)
device_y.copy_to_device(y)
for _ in range(steps):
    step[40, 64](device_y, device_x)
cuda.synchronize()
task.write("y", device_y.copy_to_host())
