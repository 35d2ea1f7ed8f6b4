"""py07 variant: the steps as a loop over a constant tuple, the shared array's dtype as
numba.float32 with the shape a module constant, the block's sum added with cuda.atomic.add into
a zeroed array, and NumPy arrays handed straight to the kernel (Numba copies them)."""

import hostkit
import numba
import numpy as np
from numba import cuda

task = hostkit.Task.open()
x = task.read("x")

THREADS = 128
STEPS = (64, 32, 16, 8, 4, 2, 1)


@cuda.jit
def block_sums(x, sums):
    tile = cuda.shared.array(shape=THREADS, dtype=numba.float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    value = numba.float32(0)
    if i < x.shape[0]:
        value = x[i]
    tile[t] = value
    cuda.syncthreads()
    for step in STEPS:
        if t < step:
            tile[t] += tile[t + step]
        cuda.syncthreads()
    if t == 0:
        cuda.atomic.add(sums, cuda.blockIdx.x, tile[0])


blocks = -(-x.size // THREADS)
sums = np.zeros(blocks, dtype=np.float32)
block_sums[blocks, THREADS](x, sums)
task.write("sums", sums)
