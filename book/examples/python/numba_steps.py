"""Ten launches of one Numba kernel, y = 2y + x, on arrays that live on the host or on the device.
`runner run -- python book/examples/python/numba_steps.py host` passes NumPy arrays at every
launch, so Numba copies both of them in and back ten times; with `device` they are copied in once
and the result back once. With `pinned` the arrays are device arrays again, and the host arrays
they are copied from and to are page-locked (cuda.pinned_array). Prints how many elements came
back wrong.
"""
import sys

import numpy as np
from numba import cuda


@cuda.jit
def step(x, y):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = 2 * y[i] + x[i]


n = 1 << 20
threads = 256
blocks = (n + threads - 1) // threads
mode = sys.argv[1] if len(sys.argv) > 1 else "device"

# ANCHOR: modes
if mode == "host":
    x = np.ones(n, dtype=np.float32)
    y = np.zeros(n, dtype=np.float32)
    for _ in range(10):
        step[blocks, threads](x, y)        # copies x and y in, and both back, every time
else:
    if mode == "pinned":
        x = cuda.pinned_array(n, dtype=np.float32)   # page-locked host memory
        y = cuda.pinned_array(n, dtype=np.float32)
    else:
        x = np.empty(n, dtype=np.float32)
        y = np.empty(n, dtype=np.float32)
    x[:] = 1
    y[:] = 0
    d_x = cuda.to_device(x)                # in once
    d_y = cuda.to_device(y)
    for _ in range(10):
        step[blocks, threads](d_x, d_y)    # no copies
    d_y.copy_to_host(y)                    # back once, into the host array
# ANCHOR_END: modes
print("wrong:", int(np.sum(y != 1023)))
