"""py04 mistake: the host's zeros handed back; the device's counts never copied back."""

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
        b = min(int(x[i] * counts.size), counts.size - 1)
        # TODO: add 1 to counts[b] so that no other thread's addition is lost.
        cuda.atomic.add(counts, b, 1)


device_x = cuda.to_device(x)
counts = np.zeros(bins, dtype=np.int32)
device_counts = cuda.to_device(counts)
threads_per_block = 128
blocks = (x.size + threads_per_block - 1) // threads_per_block
histogram[blocks, threads_per_block](device_x, device_counts)
task.write("counts", counts, "i32")
