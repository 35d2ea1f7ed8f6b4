"""py09 variant: the kernel compiled with cuda.bindings' nvrtc directly, its PTX loaded with
cuda.core's ObjectCode.from_ptx, launched with cuda.core."""

import hostkit
import numpy as np
from cuda.bindings import driver as cu
from cuda.bindings import nvrtc
from cuda.core import Device, LaunchConfig, ObjectCode, launch

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

err, prog = nvrtc.nvrtcCreateProgram(KERNEL.encode(), b"saxpy.cu", 0, [], [])
major, minor = device.compute_capability
opts = [f"--gpu-architecture=compute_{major}{minor}".encode()]
(err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
    raise RuntimeError(f"nvrtc: {err}")
err, size = nvrtc.nvrtcGetPTXSize(prog)
ptx = b" " * size
(err,) = nvrtc.nvrtcGetPTX(prog, ptx)
kernel = ObjectCode.from_ptx(ptx).get_kernel("saxpy")

device_x = device.allocate(x.nbytes, stream=stream)
device_y = device.allocate(y.nbytes, stream=stream)
cu.cuMemcpyHtoDAsync(int(device_x.handle), x.ctypes.data, x.nbytes, stream.handle)
cu.cuMemcpyHtoDAsync(int(device_y.handle), y.ctypes.data, y.nbytes, stream.handle)
launch(stream, LaunchConfig(grid=(n + BLOCK - 1) // BLOCK, block=BLOCK), kernel, alpha, device_x, device_y, np.int32(n))
cu.cuMemcpyDtoHAsync(y.ctypes.data, int(device_y.handle), y.nbytes, stream.handle)
stream.sync()
task.write("y", y)
