"""Exercise py06: a 2D grid.

A matrix maps naturally onto a 2D grid of 2D blocks. cuda.grid(2) gives a thread its (x, y)
position in the whole grid: x counts along a row (columns), y down the columns (rows), as
threadIdx.x and threadIdx.y do. Indexing a[row, col] with col = x keeps a warp's 32 threads on
neighbouring elements of one row.

Smooth a matrix: every element not on the border becomes the mean of its four neighbours (above,
below, left, right, added in that order, times 0.25); border elements are copied unchanged.
"""

import hostkit
from numba import cuda

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)


@cuda.jit
def smooth(a, out):
    # x taken as the row, y as the column.
    row, col = cuda.grid(2)
    # TODO: the threads outside the matrix do nothing (a.shape is (rows, cols)).
    if row < a.shape[0] and col < a.shape[1]:
        # TODO: border elements are copied; the others are the mean of their four neighbours.
        if row == 0 or col == 0 or row == a.shape[0] - 1 or col == a.shape[1] - 1:
            out[row, col] = a[row, col]
        else:
            out[row, col] = (a[row - 1, col] + a[row + 1, col] + a[row, col - 1] + a[row, col + 1]) * 0.25


device_a = cuda.to_device(a)
device_out = cuda.device_array_like(device_a)
threads_per_block = (32, 8)
# TODO: enough blocks in each dimension to cover every column (x) and every row (y).
blocks = (1, 1)
blocks = ((rows + 31) // 32, (cols + 7) // 8)
smooth[blocks, threads_per_block](device_a, device_out)
task.write("out", device_out.copy_to_host().ravel())
