"""py09 mistake: x and y swapped in the launch's arguments."""

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
alpha = np.float32(task.real("alpha"))
x = task.read("x")
y = task.read("y")
n = x.size

device = Device()
device.set_current()
stream = device.create_stream()

# TODO 1: compile KERNEL to PTX for this device's compute capability, Program(KERNEL,
# code_type="c++", options=ProgramOptions(arch=f"compute_{device.arch}")).compile("ptx"), and take
# the kernel "saxpy" from the module (.get_kernel).
options = ProgramOptions(arch=f"compute_{device.arch}")
kernel = Program(KERNEL, code_type="c++", options=options).compile("ptx").get_kernel("saxpy")

# TODO 2: allocate x and y on the device (device.allocate(bytes, stream=stream)) and copy them in:
# cu.cuMemcpyHtoDAsync(int(buffer.handle), array.ctypes.data, array.nbytes, stream.handle).
device_x = device.allocate(x.nbytes, stream=stream)
device_y = device.allocate(y.nbytes, stream=stream)
for buffer, array in ((device_x, x), (device_y, y)):
    cu.cuMemcpyHtoDAsync(int(buffer.handle), array.ctypes.data, array.nbytes, stream.handle)

# TODO 3: launch saxpy(alpha, x, y, n) on the stream with enough blocks of BLOCK threads for
# every element (round up), the n as np.int32: launch(stream, LaunchConfig(grid=..., block=BLOCK),
# kernel, alpha, device_x, device_y, np.int32(n)).
blocks = (n + BLOCK - 1) // BLOCK
launch(stream, LaunchConfig(grid=blocks, block=BLOCK), kernel, alpha, device_y, device_x, np.int32(n))

# TODO 4: copy y back into y (cu.cuMemcpyDtoHAsync) and wait for the stream (stream.sync()).
cu.cuMemcpyDtoHAsync(y.ctypes.data, int(device_y.handle), y.nbytes, stream.handle)
stream.sync()

task.write("y", y)
