"""py08 variant: no padding; the tile's columns are swizzled instead (thread (tx, ty) stores at
column tx ^ ty of row ty, and the reader finds it at column ty ^ tx of row tx), which spreads a
column of the tile over all 32 banks as padding does."""

import hostkit
from numba import cuda, float32

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)

TILE = 32


@cuda.jit
def transpose(a, out):
    tile = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    if row < a.shape[0] and col < a.shape[1]:
        tile[ty, tx ^ ty] = a[row, col]
    cuda.syncthreads()
    row = cuda.blockIdx.x * TILE + ty
    col = cuda.blockIdx.y * TILE + tx
    if row < out.shape[0] and col < out.shape[1]:
        out[row, col] = tile[tx, ty ^ tx]


device_a = cuda.to_device(a)
device_out = cuda.device_array((cols, rows), dtype=a.dtype)
blocks = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
transpose[blocks, (TILE, TILE)](device_a, device_out)
task.write("out", device_out.copy_to_host().ravel())
