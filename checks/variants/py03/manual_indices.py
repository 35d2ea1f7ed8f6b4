"""py03 written from the CUDA C names: threadIdx, blockIdx, blockDim, gridDim, a while loop."""
import math

import hostkit
from numba import cuda

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")


@cuda.jit
def hypot_stride(x, y, out):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    step = cuda.blockDim.x * cuda.gridDim.x
    while i < out.shape[0]:
        out[i] = math.hypot(x[i], y[i])
        i += step


d_x, d_y = cuda.to_device(x), cuda.to_device(y)
d_out = cuda.device_array(x.shape, dtype=x.dtype)
hypot_stride[32, 128](d_x, d_y, d_out)
out = d_out.copy_to_host()
task.write("out", out)
