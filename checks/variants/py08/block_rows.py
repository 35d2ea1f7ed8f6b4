"""py08 variant: NVIDIA's blog layout, a 32 x 32 tile padded to 33 moved by blocks of 32 x 8
threads, each thread copying four rows in a loop; an explicit signature and a stream."""

import hostkit
import numpy as np
from numba import cuda, float32

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)

TILE = 32
BLOCK_ROWS = 8
PADDED = TILE + 1


@cuda.jit("void(float32[:, :], float32[:, :])")
def transpose(a, out):
    tile = cuda.shared.array((TILE, PADDED), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * TILE + tx
    for j in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.y * TILE + ty + j
        if row < a.shape[0] and col < a.shape[1]:
            tile[ty + j, tx] = a[row, col]
    cuda.syncthreads()
    col = cuda.blockIdx.y * TILE + tx
    for j in range(0, TILE, BLOCK_ROWS):
        row = cuda.blockIdx.x * TILE + ty + j
        if row < out.shape[0] and col < out.shape[1]:
            out[row, col] = tile[tx, ty + j]


stream = cuda.stream()
d_a = cuda.to_device(np.ascontiguousarray(a, dtype=np.float32), stream=stream)
d_out = cuda.device_array((cols, rows), dtype=np.float32, stream=stream)
grid = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
transpose[grid, (TILE, BLOCK_ROWS), stream](d_a, d_out)
stream.synchronize()
task.write("out", d_out.copy_to_host().reshape(-1))
