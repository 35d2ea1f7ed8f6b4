"""py04 mistake: the bin scaled by the number of values, not of bins."""

import hostkit
import numpy as np
from numba import cuda

task = hostkit.Task.open()
x = task.read("x")
bins = task.param("bins")


@cuda.jit
def histogram(x, counts):
    i = cuda.grid(1)
    if i < x.size:
        b = min(int(x[i] * x.size), x.size - 1)
        # TODO: add 1 to counts[b] so that no other thread's addition is lost.
        cuda.atomic.add(counts, b, 1)


device_x = cuda.to_device(x)
device_counts = cuda.to_device(np.zeros(bins, dtype=np.int32))
threads_per_block = 128
blocks = (x.size + threads_per_block - 1) // threads_per_block
histogram[blocks, threads_per_block](device_x, device_counts)
task.write("counts", device_counts.copy_to_host(), "i32")
