"""py06 with the indices from threadIdx/blockIdx, math.ceil for the grid and one combined test."""
import math

import hostkit
from numba import cuda

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)


@cuda.jit
def smooth(a, out):
    c = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    r = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    n_rows, n_cols = a.shape
    if r >= n_rows or c >= n_cols:
        return
    inner = 0 < r < n_rows - 1 and 0 < c < n_cols - 1
    if inner:
        out[r, c] = (a[r - 1, c] + a[r + 1, c] + a[r, c - 1] + a[r, c + 1]) * 0.25
    else:
        out[r, c] = a[r, c]


d_a = cuda.to_device(a)
d_out = cuda.device_array((rows, cols), dtype=a.dtype)
block = (16, 16)
grid = (math.ceil(cols / block[0]), math.ceil(rows / block[1]))
smooth[grid, block](d_a, d_out)
task.write("out", d_out.copy_to_host().reshape(-1))
