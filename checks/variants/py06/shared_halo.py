"""py06 variant: each block loads its tile and a one-element halo into shared memory (the
corners unused), waits, then smooths from the tile."""

import hostkit
from numba import cuda, float32

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)

BX = 32
BY = 8
SX = BX + 2
SY = BY + 2


@cuda.jit
def smooth(a, out):
    tile = cuda.shared.array((SY, SX), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col, row = cuda.grid(2)
    nrows, ncols = a.shape
    inside = row < nrows and col < ncols
    if inside:
        tile[ty + 1, tx + 1] = a[row, col]
        if tx == 0 and col > 0:
            tile[ty + 1, 0] = a[row, col - 1]
        if (tx == BX - 1 or col == ncols - 1) and col + 1 < ncols:
            tile[ty + 1, tx + 2] = a[row, col + 1]
        if ty == 0 and row > 0:
            tile[0, tx + 1] = a[row - 1, col]
        if (ty == BY - 1 or row == nrows - 1) and row + 1 < nrows:
            tile[ty + 2, tx + 1] = a[row + 1, col]
    cuda.syncthreads()
    if inside:
        if row == 0 or col == 0 or row == nrows - 1 or col == ncols - 1:
            out[row, col] = tile[ty + 1, tx + 1]
        else:
            out[row, col] = (tile[ty, tx + 1] + tile[ty + 2, tx + 1] + tile[ty + 1, tx] + tile[ty + 1, tx + 2]) * 0.25


device_a = cuda.to_device(a)
device_out = cuda.device_array_like(device_a)
blocks = ((cols + BX - 1) // BX, (rows + BY - 1) // BY)
smooth[blocks, (BX, BY)](device_a, device_out)
task.write("out", device_out.copy_to_host().ravel())
