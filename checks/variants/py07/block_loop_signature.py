"""py07 variant: an explicit signature (void(float32[:], float32[:])), a grid of at most 32 blocks
where each block loops over the blocks of x that are its own (a block-stride loop, a barrier
before the tile is reused), the input copied with device_array + copy_to_device."""

import hostkit
import numpy as np
from numba import cuda, float32

task = hostkit.Task.open()
x = task.read("x")

THREADS = 128


@cuda.jit("void(float32[:], float32[:])")
def block_sums(x, sums):
    tile = cuda.shared.array(THREADS, float32)
    t = cuda.threadIdx.x
    for b in range(cuda.blockIdx.x, sums.size, cuda.gridDim.x):
        i = b * THREADS + t
        if i < x.size:
            tile[t] = x[i]
        else:
            tile[t] = 0.0
        cuda.syncthreads()
        step = THREADS // 2
        while step > 0:
            if t < step:
                tile[t] += tile[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            sums[b] = tile[0]
        # The next pass overwrites the tile: everyone must have finished with this one.
        cuda.syncthreads()


blocks = (x.size + THREADS - 1) // THREADS
device_x = cuda.device_array(x.shape, dtype=np.float32)
device_x.copy_to_device(x)
device_sums = cuda.device_array(blocks, dtype=np.float32)
block_sums[min(blocks, 32), THREADS](device_x, device_sums)
task.write("sums", device_sums.copy_to_host())
