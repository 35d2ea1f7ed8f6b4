"""A py02 mistake: the guard lets i == y.size through (<= for <).

Exercise py02: device arrays, and copies you choose.

Called on NumPy arrays, a Numba kernel copies every argument to the GPU before the launch and
back after it, because Numba cannot tell which arrays the kernel reads and which it writes. A
program that launches many kernels on the same data pays that at every launch. A device array
(cuda.to_device, cuda.device_array) lives on the GPU until you copy it back with copy_to_host.

`steps` times, y becomes 0.5 * y + x, elementwise. Keep x and y on the device for all the
steps: copy each in once, and y back once, at the end. `runner check py02` counts the copies.
"""

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
    if i <= y.size:
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

# TODO: bring y back from the device, once, after the last step (copy_to_host).
result = device_y
result = device_y.copy_to_host()
task.write("y", result)
