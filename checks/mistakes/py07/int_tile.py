"""py07 mistake: the shared array of int32, so every element is truncated."""

import hostkit
from numba import cuda, float32, int32

task = hostkit.Task.open()
x = task.read("x")

THREADS = 128


@cuda.jit
def block_sums(x, sums):
    # TODO: a shared array of THREADS float32s for the block.
    tile = cuda.shared.array(THREADS, int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    # TODO: each thread puts its element (0 past the end of x) in the tile.
    tile[t] = x[i] if i < x.size else float32(0)
    # TODO: wait until the whole tile is written before any thread reads another's element.
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            tile[t] += tile[t + step]
        # TODO: wait until this step's additions are done before the next step reads them.
        cuda.syncthreads()
        step //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = tile[0]


blocks = (x.size + THREADS - 1) // THREADS
device_sums = cuda.device_array(blocks, dtype=x.dtype)
block_sums[blocks, THREADS](cuda.to_device(x), device_sums)
task.write("sums", device_sums.copy_to_host())
