"""py09 variant: the kernel a template, instantiated by compiling with name_expressions and taken
by its instantiated name (as cuda.core's own examples do); blocks from math.ceil."""

import math

import hostkit
import numpy as np
from cuda.bindings import driver as cu
from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch

KERNEL = r"""
template <typename T>
__global__ void saxpy(T alpha, const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = alpha * x[i] + y[i];
    }
}
"""

task = hostkit.Task.open()
alpha = np.float32(task.real("alpha"))
x = task.read("x")
y = task.read("y")
n = x.size

dev = Device()
dev.set_current()
s = dev.create_stream()

program = Program(KERNEL, code_type="c++", options=ProgramOptions(std="c++17", arch=f"compute_{dev.arch}"))
module = program.compile("ptx", name_expressions=("saxpy<float>",))
kernel = module.get_kernel("saxpy<float>")

d_x = dev.allocate(x.nbytes, stream=s)
d_y = dev.allocate(y.nbytes, stream=s)
cu.cuMemcpyHtoDAsync(int(d_x.handle), x.ctypes.data, x.nbytes, s.handle)
cu.cuMemcpyHtoDAsync(int(d_y.handle), y.ctypes.data, y.nbytes, s.handle)

threads = 256
config = LaunchConfig(grid=math.ceil(n / threads), block=threads)
launch(s, config, kernel, alpha, d_x, d_y, np.int32(n))

cu.cuMemcpyDtoHAsync(y.ctypes.data, int(d_y.handle), y.nbytes, s.handle)
s.sync()
task.write("y", y)
