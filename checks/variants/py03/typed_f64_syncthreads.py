"""py03 variant: an explicit float64 signature, the stride from blockDim * gridDim and an index
from threadIdx/blockIdx, a fixed grid of 64 blocks of 64, cuda.synchronize() before the copy."""

import math

import hostkit
import numpy as np
from numba import cuda

task = hostkit.Task.open()
x = task.read("x").astype(np.float64)
y = task.read("y").astype(np.float64)


@cuda.jit("void(float64[:], float64[:], float64[:])")
def hypot_stride(x, y, out):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    step = cuda.blockDim.x * cuda.gridDim.x
    n = out.shape[0]
    for j in range(i, n, step):
        a = x[j]
        b = y[j]
        out[j] = math.sqrt(a * a + b * b)


d_out = cuda.device_array(x.shape[0], dtype=np.float64)
hypot_stride[64, 64](cuda.to_device(x), cuda.to_device(y), d_out)
cuda.synchronize()
task.write("out", d_out.copy_to_host())
