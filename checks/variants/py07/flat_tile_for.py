"""py07 variant: the shared array sized by a module constant with a 1-tuple shape, the tree as a
for loop over precomputed strides, the index from threadIdx/blockIdx, an extra barrier at the end."""

import hostkit
import numpy as np
from numba import cuda, float32

task = hostkit.Task.open()
x = task.read("x")

BLOCK = 128


@cuda.jit
def block_sums(x, sums):
    shared = cuda.shared.array((BLOCK,), dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    v = float32(0)
    if i < x.shape[0]:
        v = x[i]
    shared[t] = v
    cuda.syncthreads()
    for s in (64, 32, 16, 8, 4, 2, 1):
        if t < s:
            shared[t] = shared[t] + shared[t + s]
        cuda.syncthreads()
    if t == 0:
        sums[cuda.blockIdx.x] = shared[0]
    cuda.syncthreads()


n_blocks = -(-x.size // BLOCK)
d_sums = cuda.device_array(n_blocks, dtype=np.float32)
block_sums[n_blocks, BLOCK](cuda.to_device(x), d_sums)
cuda.synchronize()
task.write("sums", d_sums.copy_to_host())
