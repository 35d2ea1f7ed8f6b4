"""Exercise py11: local and constant arrays.

cuda.local.array(shape, dtype) is an array of each thread's own, for scratch work no other
thread sees (its shape must be a constant). cuda.const.array_like(ARRAY) puts a NumPy array of
the module, known when the kernel compiles, in constant memory: read-only, cached, and served to
a whole warp at once when its threads read the same element.

A trimmed mean filter: out[i] is the weighted sum of the five values x[i - 2], ..., x[i + 2]
(an index past either end taken as the nearest end) after sorting them, with the weights
WEIGHTS: the smallest and the largest get weight 0, so one outlier in a window changes nothing.
Each thread copies its window into a local array, sorts it there, and reads the weights from
constant memory.
"""

import hostkit
import numpy as np
from numba import cuda, float32

task = hostkit.Task.open()
x = task.read("x")

WIDTH = 5
WEIGHTS = np.array([0.0, 0.25, 0.5, 0.25, 0.0], dtype=np.float32)


@cuda.jit
def trimmed_mean(x, out):
    i = cuda.grid(1)
    if i >= x.size:
        return
    # TODO: a local array of WIDTH float32s for this thread's window.
    window = cuda.local.array(WIDTH, float32)
    # TODO: WEIGHTS as a constant array.
    weights = cuda.const.array_like(WEIGHTS)
    for k in range(WIDTH):
        j = min(max(i + k - WIDTH // 2, 0), x.size - 1)
        window[k] = x[j]
    # Insertion sort: the window is five elements, the thread's own.
    for k in range(1, WIDTH):
        value = window[k]
        m = k - 1
        while m >= 0 and window[m] > value:
            window[m + 1] = window[m]
            m -= 1
        window[m + 1] = value
    total = float32(0)
    for k in range(WIDTH):
        total += weights[k] * window[k]
    out[i] = total


THREADS = 128
blocks = (x.size + THREADS - 1) // THREADS
device_out = cuda.device_array_like(x)
trimmed_mean[blocks, THREADS](cuda.to_device(x), device_out)
task.write("out", device_out.copy_to_host())
