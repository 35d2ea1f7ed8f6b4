"""py09 variant: a grid-stride kernel launched on a grid of a few blocks per multiprocessor
(device.properties.multiprocessor_count), and the host waiting on an event recorded after the
copy back instead of on the stream."""

import hostkit
import numpy as np
from cuda.bindings import driver as cu
from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch

KERNEL = r"""
extern "C" __global__ void saxpy(float alpha, const float* __restrict__ x, float* __restrict__ y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = alpha * x[i] + y[i];
    }
}
"""

task = hostkit.Task.open()
alpha = np.float32(task.real("alpha"))
x = task.read("x")
y = task.read("y")
n = x.size

device = Device()
device.set_current()
stream = device.create_stream()
options = ProgramOptions(arch=f"compute_{device.arch}")
kernel = Program(KERNEL, code_type="c++", options=options).compile("ptx").get_kernel("saxpy")

buffers = [device.allocate(a.nbytes, stream=stream) for a in (x, y)]
for buffer, array in zip(buffers, (x, y)):
    cu.cuMemcpyHtoDAsync(int(buffer.handle), array.ctypes.data, array.nbytes, stream.handle)

blocks = 2 * device.properties.multiprocessor_count
launch(stream, LaunchConfig(grid=blocks, block=128), kernel, alpha, buffers[0], buffers[1], np.int32(n))

cu.cuMemcpyDtoHAsync(y.ctypes.data, int(buffers[1].handle), y.nbytes, stream.handle)
done = stream.record()
done.sync()
task.write("y", y)
