"""py06 mistake: no border case: every element is the mean of its neighbours, read past the matrix's edges."""

import hostkit
from numba import cuda

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)


@cuda.jit
def smooth(a, out):
    # x runs along a row, so it is the column; y is the row.
    col, row = cuda.grid(2)
    # TODO: the threads outside the matrix do nothing (a.shape is (rows, cols)).
    if row < a.shape[0] and col < a.shape[1]:
        # TODO: border elements are copied; the others are the mean of their four neighbours.
        if True:
            out[row, col] = (a[row - 1, col] + a[row + 1, col] + a[row, col - 1] + a[row, col + 1]) * 0.25


device_a = cuda.to_device(a)
device_out = cuda.device_array_like(device_a)
threads_per_block = (32, 8)
# TODO: enough blocks in each dimension to cover every column (x) and every row (y).
blocks = (1, 1)
blocks = ((cols + 31) // 32, (rows + 7) // 8)
smooth[blocks, threads_per_block](device_a, device_out)
task.write("out", device_out.copy_to_host().ravel())
