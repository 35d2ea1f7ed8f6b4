"""py04 variant: an explicit signature (void(float32[:], int32[:], int32)), the number of bins as
an argument, a grid-stride loop on a fixed grid, the counts' zeros made on a stream and the
stream waited for before reading them."""

import hostkit
import numpy as np
from numba import cuda, float32, int32, void

task = hostkit.Task.open()
x = task.read("x")
bins = task.param("bins")


@cuda.jit(void(float32[:], int32[:], int32))
def histogram(x, counts, nbins):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        b = int32(x[i] * nbins)
        b = min(b, nbins - 1)
        cuda.atomic.add(counts, b, 1)


stream = cuda.stream()
device_x = cuda.to_device(x, stream=stream)
device_counts = cuda.to_device(np.zeros(bins, dtype=np.int32), stream=stream)
histogram[8, 256, stream](device_x, device_counts, bins)
counts = device_counts.copy_to_host(stream=stream)
stream.synchronize()
task.write("counts", counts, "i32")
