"""Exercise py04: a histogram with atomic additions.

Each thread looks at one value and adds 1 to the count of its bin. Many threads fall in the same
bin at once, and `counts[b] += 1` is three steps (read, add, write): two threads that read the
same count both write it plus one, and one of the additions is lost. cuda.atomic.add(array,
index, value) does the three steps as one, so none is lost.

Count the values of x (each in [0, 1)) in `bins` bins of equal width: value v goes to bin
int(v * bins).
"""

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
        counts[b] += 1


device_x = cuda.to_device(x)
device_counts = cuda.to_device(np.zeros(bins, dtype=np.int32))
threads_per_block = 128
blocks = (x.size + threads_per_block - 1) // threads_per_block
histogram[blocks, threads_per_block](device_x, device_counts)
task.write("counts", device_counts.copy_to_host(), "i32")
