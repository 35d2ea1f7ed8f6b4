"""py06 variant: a 2D grid-stride loop over a fixed grid, with cuda.gridsize(2)."""

import hostkit
import numpy as np
from numba import cuda

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)


@cuda.jit
def smooth(a, out):
    x0, y0 = cuda.grid(2)
    sx, sy = cuda.gridsize(2)
    n_rows, n_cols = a.shape
    for row in range(y0, n_rows, sy):
        for col in range(x0, n_cols, sx):
            if row == 0 or col == 0 or row == n_rows - 1 or col == n_cols - 1:
                out[row, col] = a[row, col]
            else:
                out[row, col] = (a[row - 1, col] + a[row + 1, col] + a[row, col - 1] + a[row, col + 1]) * 0.25


d_a = cuda.to_device(a)
d_out = cuda.device_array_like(d_a)
smooth[(4, 8), (32, 4)](d_a, d_out)
cuda.synchronize()
task.write("out", d_out.copy_to_host().ravel())
