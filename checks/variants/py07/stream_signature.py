"""py07 variant: an explicit signature, the block size from cuda.blockDim.x, a stream for every
call, the result copied into a host array."""

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
    i = cuda.grid(1)
    tile[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    half = cuda.blockDim.x >> 1
    while half:
        if t < half:
            tile[t] += tile[t + half]
        cuda.syncthreads()
        half >>= 1
    if t == 0:
        sums[cuda.blockIdx.x] = tile[0]


stream = cuda.stream()
blocks = (x.size + THREADS - 1) // THREADS
d_x = cuda.to_device(x.astype(np.float32), stream=stream)
d_sums = cuda.device_array(blocks, dtype=np.float32, stream=stream)
block_sums[blocks, THREADS, stream](d_x, d_sums)
sums = np.empty(blocks, dtype=np.float32)
d_sums.copy_to_host(sums, stream=stream)
stream.synchronize()
task.write("sums", sums)
