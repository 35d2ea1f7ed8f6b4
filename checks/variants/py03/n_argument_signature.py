"""py03 variant: an explicit signature with numba.float32 arrays and the element count as an int32
argument, a while loop whose stride is computed once, NumPy arrays handed straight to the kernel
for the inputs and a device array for the output."""

import math

import hostkit
import numba
import numpy as np
from numba import cuda

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")


@cuda.jit(numba.void(numba.float32[:], numba.float32[:], numba.float32[:], numba.int32))
def hypot_stride(x, y, out, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    step = cuda.blockDim.x * cuda.gridDim.x
    while i < n:
        out[i] = math.hypot(x[i], y[i])
        i += step


out = cuda.device_array(x.size, dtype=np.float32)
hypot_stride[32, 128](x, y, out, np.int32(x.size))
task.write("out", out.copy_to_host())
