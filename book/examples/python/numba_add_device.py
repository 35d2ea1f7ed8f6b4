"""The Numba vector add of runner/tests/fixtures/cuda_python/numba_add.py with its arrays kept on
the device: the inputs are copied in once with cuda.to_device, the output is allocated on the
device with cuda.device_array and only it is copied back, with copy_to_host.
`runner run -- python book/examples/python/numba_add_device.py` shows 2 copies in and 1 back
where the host-array version makes 3 and 3. Prints how many elements came back wrong.
"""
import numpy as np
from numba import cuda


# ANCHOR: kernel
@cuda.jit(lineinfo=True)
def add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
# ANCHOR_END: kernel


# ANCHOR: host
n = 1000
a = np.arange(n, dtype=np.float32)
b = 2 * a
d_a = cuda.to_device(a)                  # copied in: an input
d_b = cuda.to_device(b)                  # copied in: an input
d_c = cuda.device_array(n, np.float32)   # allocated only: the kernel writes every element
add[4, 256](d_a, d_b, d_c)               # no copies: the arguments are on the device already
c = d_c.copy_to_host()                   # copied back: the one result the host needs
print("wrong:", int(np.sum(c != a + b)))
# ANCHOR_END: host
