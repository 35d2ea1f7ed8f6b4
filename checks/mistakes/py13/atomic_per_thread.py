"""A typical mistake of py13: an atomic addition per thread, no tree.

Exercise py13: a reduction, the sum of a whole array.

A fixed grid of BLOCKS blocks of THREADS threads sums x, whatever its size, in three stages:
each thread adds up its elements with a grid-stride loop (given); the block adds its threads'
partial sums in shared memory by a tree; thread 0 of each block adds the block's sum to the
total with one atomic addition, so only BLOCKS atomics reach global memory.

The tree uses sequential addressing: at each step the first `step` threads add the element
`step` places on, step = THREADS / 2, ..., 1. Neighbouring threads then read neighbouring
words, in 32 different banks; the interleaved tree (thread t adding at 2 * step * t) puts two
or more of a warp's threads in one bank, and the bank serves them one after another.
"""

import hostkit
import numpy as np
from numba import cuda, float32

task = hostkit.Task.open()
x = task.read("x")

BLOCKS, THREADS = 64, 256


@cuda.jit
def reduce_sum(x, total):
    partial = float32(0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        partial += x[i]
    # Every thread adds its own partial sum: right, but BLOCKS * THREADS atomics on one word.
    cuda.atomic.add(total, 0, partial)


device_total = cuda.to_device(np.zeros(1, dtype=np.float32))
reduce_sum[BLOCKS, THREADS](cuda.to_device(x), device_total)
task.write("total", device_total.copy_to_host())
