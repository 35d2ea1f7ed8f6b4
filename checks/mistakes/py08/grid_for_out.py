"""py08 mistake: the grid sized for out's shape (rows in x), not a's."""

import hostkit
from numba import cuda, float32

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)

TILE = 32
# The shape of a shared array must be constant when Numba compiles the kernel: a global is, an
# expression inside the kernel (TILE + 1) is not.
PADDED = TILE + 1


# lineinfo=True keeps the Python lines in the kernel, so the report can say which line costs.
@cuda.jit(lineinfo=True)
def transpose(a, out):
    # TODO: a tile of float32 in shared memory, shaped so that the TILE elements of any of its
    # columns fall in TILE different banks.
    # One float32 more than TILE per row moves each row one bank along, so a column of the tile
    # runs through all 32 banks.
    tile = cuda.shared.array((TILE, PADDED), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    # The block's tile of a: neighbouring threads (tx) read neighbouring columns of one row.
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    if row < a.shape[0] and col < a.shape[1]:
        tile[ty, tx] = a[row, col]
    # TODO: wait until the whole tile is written before any thread reads another's element.
    cuda.syncthreads()
    # The same tile of out, which is a's columns as rows: again tx runs along a row, of out.
    row = cuda.blockIdx.x * TILE + ty
    col = cuda.blockIdx.y * TILE + tx
    # TODO: inside out, out[row, col] is a[col, row]: find it in the tile.
    if row < out.shape[0] and col < out.shape[1]:
        # The thread that read a[col, row] had this one's tx and ty swapped: it is at tile[tx, ty].
        out[row, col] = tile[tx, ty]


device_a = cuda.to_device(a)
device_out = cuda.device_array((cols, rows), dtype=a.dtype)
blocks = ((rows + TILE - 1) // TILE, (cols + TILE - 1) // TILE)
transpose[blocks, (TILE, TILE)](device_a, device_out)
task.write("out", device_out.copy_to_host().ravel())
