"""py08 variant: a fixed grid of 2 x 2 blocks walks over all the tiles of the matrix in a
tile-stride loop (cuda.gridDim), a barrier before each reuse of the tile; the padded tile's
shape from numba.float32 and module constants."""

import hostkit
import numba
from numba import cuda

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)

TILE = 32
PADDED = TILE + 1


@cuda.jit
def transpose(a, out):
    tile = cuda.shared.array((TILE, PADDED), numba.float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tiles_x = (a.shape[1] + TILE - 1) // TILE
    tiles_y = (a.shape[0] + TILE - 1) // TILE
    for by in range(cuda.blockIdx.y, tiles_y, cuda.gridDim.y):
        for bx in range(cuda.blockIdx.x, tiles_x, cuda.gridDim.x):
            row = by * TILE + ty
            col = bx * TILE + tx
            if row < a.shape[0] and col < a.shape[1]:
                tile[ty, tx] = a[row, col]
            cuda.syncthreads()
            row = bx * TILE + ty
            col = by * TILE + tx
            if row < out.shape[0] and col < out.shape[1]:
                out[row, col] = tile[tx, ty]
            cuda.syncthreads()


device_a = cuda.to_device(a)
device_out = cuda.device_array((cols, rows), dtype=a.dtype)
transpose[(2, 2), (TILE, TILE)](device_a, device_out)
task.write("out", device_out.copy_to_host().ravel())
