"""py09 variant: no cuda.bindings at all: x and y staged in pinned host buffers from
LegacyPinnedMemoryResource (seen through NumPy by DLPack), moved with cuda.core's
Buffer.copy_from, the stream waited for before the pinned y is read."""

import hostkit
import numpy as np
from cuda.core import Device, LaunchConfig, LegacyPinnedMemoryResource, Program, ProgramOptions, launch

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
alpha = np.float32(task.real("alpha"))
x = task.read("x")
y = task.read("y")
n = x.size

device = Device()
device.set_current()
stream = device.create_stream()
kernel = Program(KERNEL, code_type="c++", options=ProgramOptions(arch=f"compute_{device.arch}")).compile("ptx").get_kernel("saxpy")

pinned = LegacyPinnedMemoryResource()
host_x = pinned.allocate(x.nbytes, stream=stream)
host_y = pinned.allocate(y.nbytes, stream=stream)
view_x = np.from_dlpack(host_x).view(np.float32)
view_y = np.from_dlpack(host_y).view(np.float32)
view_x[:] = x
view_y[:] = y

device_x = device.allocate(x.nbytes, stream=stream)
device_y = device.allocate(y.nbytes, stream=stream)
device_x.copy_from(host_x, stream=stream)
device_y.copy_from(host_y, stream=stream)

launch(stream, LaunchConfig(grid=(n + BLOCK - 1) // BLOCK, block=BLOCK), kernel, alpha, device_x, device_y, np.int32(n))

host_y.copy_from(device_y, stream=stream)
stream.sync()
task.write("y", view_y.copy())
