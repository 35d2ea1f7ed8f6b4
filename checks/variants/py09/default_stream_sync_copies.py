"""py09 variant: everything on the device's default stream, the copies synchronous
(cuMemcpyHtoD / cuMemcpyDtoH, which wait for the work before them), their results checked, the
grid and block as 1-tuples, Device(0) named."""

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


def check(result):
    err = result[0]
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA error {err}")


task = hostkit.Task.open()
alpha = np.float32(task.real("alpha"))
x = task.read("x")
y = task.read("y")
n = x.size

device = Device(0)
device.set_current()
stream = device.default_stream

arch = "".join(str(part) for part in device.compute_capability)
ptx = Program(KERNEL, "c++", ProgramOptions(arch="compute_" + arch)).compile("ptx")
kernel = ptx.get_kernel("saxpy")

device_x = device.allocate(x.nbytes, stream=stream)
device_y = device.allocate(y.nbytes, stream=stream)
check(cu.cuMemcpyHtoD(int(device_x.handle), x.ctypes.data, x.nbytes))
check(cu.cuMemcpyHtoD(int(device_y.handle), y.ctypes.data, y.nbytes))

launch(stream, LaunchConfig(grid=((n + BLOCK - 1) // BLOCK,), block=(BLOCK,)), kernel, alpha, device_x, device_y, np.int32(n))

out = np.empty_like(y)
check(cu.cuMemcpyDtoH(out.ctypes.data, int(device_y.handle), out.nbytes))
task.write("y", out)
