"""py08 variant: a and out passed flat (1D) with their shape as int arguments and every index
computed by hand (row * cols + col), the tile a flat shared array of TILE * (TILE + 1) float32s
indexed ty * PADDED + tx, and the output handed back without a reshape."""

import hostkit
import numpy as np
from numba import cuda, float32

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a")

TILE = 32
PADDED = TILE + 1
TILE_WORDS = TILE * PADDED


@cuda.jit
def transpose(a, out, rows, cols):
    tile = cuda.shared.array(TILE_WORDS, float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    r = cuda.blockIdx.y * TILE + ty
    c = cuda.blockIdx.x * TILE + tx
    if r < rows and c < cols:
        tile[ty * PADDED + tx] = a[r * cols + c]
    cuda.syncthreads()
    # out has cols rows of rows elements each.
    r = cuda.blockIdx.x * TILE + ty
    c = cuda.blockIdx.y * TILE + tx
    if r < cols and c < rows:
        out[r * rows + c] = tile[tx * PADDED + ty]


device_a = cuda.to_device(a)
device_out = cuda.device_array(rows * cols, dtype=np.float32)
grid = (cols // TILE + (cols % TILE > 0), rows // TILE + (rows % TILE > 0))
transpose[grid, (TILE, TILE)](device_a, device_out, rows, cols)
task.write("out", device_out.copy_to_host())
