"""py08 variant: the tile's corner from cuda.grid(2) minus the thread's index, the output's
position from the block's corner swapped, an explicit C-contiguous signature
(float32[:, ::1]), device_array + copy_to_device on a stream, the result copied into a host
array made beforehand."""

import hostkit
import numpy as np
from numba import cuda, float32

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)

TILE = 32
PADDED = 33


@cuda.jit("void(float32[:, ::1], float32[:, ::1])")
def transpose(a, out):
    tile = cuda.shared.array(shape=(TILE, PADDED), dtype=float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    if y < a.shape[0] and x < a.shape[1]:
        tile[ty, tx] = a[y, x]
    cuda.syncthreads()
    corner_x = x - tx
    corner_y = y - ty
    out_row = corner_x + ty
    out_col = corner_y + tx
    if out_row < out.shape[0] and out_col < out.shape[1]:
        out[out_row, out_col] = tile[tx, ty]


stream = cuda.stream()
device_a = cuda.device_array((rows, cols), dtype=np.float32, stream=stream)
device_a.copy_to_device(a, stream=stream)
device_out = cuda.device_array((cols, rows), dtype=np.float32, stream=stream)
threads = (TILE, TILE)
blocks = ((cols + threads[0] - 1) // threads[0], (rows + threads[1] - 1) // threads[1])
transpose[blocks, threads, stream](device_a, device_out)
result = np.empty((cols, rows), dtype=np.float32)
device_out.copy_to_host(result, stream=stream)
stream.synchronize()
task.write("out", result.ravel())
