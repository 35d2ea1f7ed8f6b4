"""Exercise py07: shared memory and barriers.

cuda.shared.array(shape, dtype) is memory that every thread of a block sees, on the chip, much
faster than global memory; its shape must be a constant. cuda.syncthreads() is a barrier: no
thread of the block goes past it until all have reached it, so what one thread wrote before it,
every other thread can read after it.

Sum each block's 128 elements of x (the missing elements of the last block count as 0) by a tree
in shared memory: at each step the first half of the active threads add the element `step`
places further on to their own, and the step halves, 64, 32, ..., 1. Thread 0 then writes the
block's sum, tile[0], to sums[blockIdx.x].
"""

import hostkit
from numba import cuda, float32

task = hostkit.Task.open()
x = task.read("x")

THREADS = 128


@cuda.jit
def block_sums(x, sums):
    # TODO: a shared array of THREADS float32s for the block.
    tile = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    # TODO: each thread puts its element (0 past the end of x) in the tile.
    tile[t] = x[i] if i < x.size else float32(0)
    # TODO: wait until the whole tile is written before any thread reads another's element.
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
