"""py06 variant: the neighbours read into named locals first, the border test through a
device function, the matrix's shape passed as int32 arguments, blocks of 16 x 16."""

import hostkit
import numpy as np
from numba import cuda

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)


@cuda.jit(device=True)
def on_border(r, c, nrows, ncols):
    return r == 0 or c == 0 or r == nrows - 1 or c == ncols - 1


@cuda.jit
def smooth(a, out, nrows, ncols):
    c, r = cuda.grid(2)
    if r >= nrows or c >= ncols:
        return
    if on_border(r, c, nrows, ncols):
        out[r, c] = a[r, c]
        return
    up = a[r - 1, c]
    down = a[r + 1, c]
    left = a[r, c - 1]
    right = a[r, c + 1]
    out[r, c] = (up + down + left + right) * 0.25


out = cuda.device_array_like(a)
grid = ((cols + 15) // 16, (rows + 15) // 16)
smooth[grid, (16, 16)](cuda.to_device(a), out, np.int32(rows), np.int32(cols))
task.write("out", out.copy_to_host().ravel())
