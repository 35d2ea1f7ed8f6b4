"""py06 variant: two kernels, one copying every element and one overwriting the inner elements
with the mean (launched after it on the same default stream); the position from a tuple
cuda.grid(2) indexed, 32 x 4 blocks."""

import hostkit
from numba import cuda

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)


@cuda.jit
def copy(a, out):
    pos = cuda.grid(2)
    col, row = pos[0], pos[1]
    if row < a.shape[0] and col < a.shape[1]:
        out[row, col] = a[row, col]


@cuda.jit
def smooth(a, out):
    pos = cuda.grid(2)
    col, row = pos[0], pos[1]
    if 0 < row < a.shape[0] - 1 and 0 < col < a.shape[1] - 1:
        out[row, col] = 0.25 * (a[row - 1, col] + a[row + 1, col] + a[row, col - 1] + a[row, col + 1])


device_a = cuda.to_device(a)
device_out = cuda.device_array((rows, cols), dtype=a.dtype)
block = (32, 4)
grid = ((cols + block[0] - 1) // block[0], (rows + block[1] - 1) // block[1])
copy[grid, block](device_a, device_out)
smooth[grid, block](device_a, device_out)
task.write("out", device_out.copy_to_host().reshape(-1))
