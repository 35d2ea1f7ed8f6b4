"""Exercise py12: a tiled matrix multiply in shared memory.

c = a @ b, a of shape (m, k) and b of shape (k, n). Written plainly, each thread reads a whole
row of a and a whole column of b from global memory: every element of a is read n times and
every element of b m times. Tiled, a block of TILE x TILE threads computes a TILE x TILE tile
of c by walking along k one tile at a time: it loads a tile of a and a tile of b into shared
memory, one element per thread, waits, and then every thread reads TILE products' worth of
operands from the shared tiles. Each global element is now read n / TILE (or m / TILE) times.

Parts of a tile past the edge of a or b are loaded as 0, so they add nothing to the sums.
"""

import hostkit
import numpy as np
from numba import cuda, float32

task = hostkit.Task.open()
m, k, n = task.param("m"), task.param("k"), task.param("n")
a = task.read("a").reshape(m, k)
b = task.read("b").reshape(k, n)

TILE = 16


@cuda.jit
def matmul(a, b, c):
    # TODO: two shared arrays of (TILE, TILE) float32s, one for a tile of a, one for a tile of b.
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    col, row = cuda.grid(2)
    total = float32(0)
    for t in range((a.shape[1] + TILE - 1) // TILE):
        # TODO: load a[row, t * TILE + tx] into tile_a[ty, tx] and b[t * TILE + ty, col] into
        # tile_b[ty, tx], 0 where the index is past the edge; then wait for the whole block.
        ka, kb = t * TILE + tx, t * TILE + ty
        # TODO: add the TILE products of this pass, reading the operands from the tiles.
        # TODO: wait again before the next pass overwrites the tiles.
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = total


blocks = ((n + TILE - 1) // TILE, (m + TILE - 1) // TILE)
device_c = cuda.device_array((m, n), dtype=np.float32)
matmul[blocks, (TILE, TILE)](cuda.to_device(a), cuda.to_device(b), device_c)
task.write("c", device_c.copy_to_host())
