"""py07 variant: each thread keeps its partial sum in a register and writes it to the tile at
every step (the tile read after a barrier, the own element from the register), blocks sized by
the tile's shape, a stream for every call."""

import hostkit
import numpy as np
from numba import cuda, float32

task = hostkit.Task.open()
x = task.read("x")

THREADS = 128


@cuda.jit
def block_sums(x, sums):
    tile = cuda.shared.array((THREADS,), float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    mine = float32(0.0)
    if i < x.size:
        mine = x[i]
    tile[t] = mine
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step >= 1:
        if t < step:
            mine = mine + tile[t + step]
        cuda.syncthreads()
        if t < step:
            tile[t] = mine
        cuda.syncthreads()
        step = step // 2
    if t == 0:
        sums[cuda.blockIdx.x] = mine


stream = cuda.stream()
device_x = cuda.to_device(x, stream=stream)
blocks = (x.size + THREADS - 1) // THREADS
device_sums = cuda.device_array(blocks, dtype=np.float32, stream=stream)
block_sums[blocks, THREADS, stream](device_x, device_sums)
sums = device_sums.copy_to_host(stream=stream)
stream.synchronize()
task.write("sums", sums)
