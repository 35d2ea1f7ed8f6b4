"""py02 mistake: y copied back to the host after every step."""

import hostkit
from numba import cuda

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")
steps = task.param("steps")


@cuda.jit
def step(y, x):
    i = cuda.grid(1)
    # TODO: for the threads inside the arrays, replace y[i] by half of it plus x[i].
    if i < y.size:
        y[i] = 0.5 * y[i] + x[i]


threads_per_block = 256
blocks = (y.size + threads_per_block - 1) // threads_per_block

# TODO: copy x and y to the device, once each (cuda.to_device), and launch on the copies.
device_x = x
device_y = y
device_x = cuda.to_device(x)
device_y = cuda.to_device(y)

for _ in range(steps):
    step[blocks, threads_per_block](device_y, device_x)
    result = device_y.copy_to_host()

# TODO: bring y back from the device, once, after the last step (copy_to_host).
result = device_y
task.write("y", result)
