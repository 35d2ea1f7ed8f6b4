"""py09 variant: device memory from cuda.bindings' cuMemAlloc (not cuda.core's allocate), the
pointers handed to the launch as ctypes.c_uint64 (cuda.core takes no c_void_p) and the scalars as
ctypes types, the memory freed at the end."""

import ctypes

import hostkit
import numpy as np
from cuda.bindings import driver as cu
from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch

KERNEL = r"""
extern "C" __global__ void saxpy(float alpha, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = alpha * x[i] + y[i];
    }
}
"""
BLOCK = 256

task = hostkit.Task.open()
alpha = task.real("alpha")
x = task.read("x")
y = task.read("y")
n = x.size

device = Device()
device.set_current()
stream = device.create_stream()
kernel = (
    Program(KERNEL, code_type="c++", options=ProgramOptions(arch=f"compute_{device.arch}"))
    .compile("ptx")
    .get_kernel("saxpy")
)

_, px = cu.cuMemAlloc(x.nbytes)
_, py = cu.cuMemAlloc(y.nbytes)
cu.cuMemcpyHtoDAsync(px, x.ctypes.data, x.nbytes, stream.handle)
cu.cuMemcpyHtoDAsync(py, y.ctypes.data, y.nbytes, stream.handle)

args = (ctypes.c_float(alpha), ctypes.c_uint64(int(px)), ctypes.c_uint64(int(py)), ctypes.c_int(n))
launch(stream, LaunchConfig(grid=(n + BLOCK - 1) // BLOCK, block=BLOCK), kernel, *args)

cu.cuMemcpyDtoHAsync(y.ctypes.data, py, y.nbytes, stream.handle)
stream.sync()
cu.cuMemFree(px)
cu.cuMemFree(py)
task.write("y", y)
