"""py02 variant: a stream for the copies and every launch, x passed as a read-only argument
first, the loop with a while, copy_to_host into the original host array, then stream.synchronize()."""

import hostkit
from numba import cuda

task = hostkit.Task.open()
x = task.read("x")
y = task.read("y")
steps = task.param("steps")


@cuda.jit
def step(x, y):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= y.shape[0]:
        return
    y[i] = y[i] * 0.5 + x[i]


stream = cuda.stream()
d_x = cuda.to_device(x, stream=stream)
d_y = cuda.to_device(y, stream=stream)
tpb = 128
bpg = -(-y.size // tpb)
done = 0
while done < steps:
    step[bpg, tpb, stream](d_x, d_y)
    done += 1
d_y.copy_to_host(y, stream=stream)
stream.synchronize()
task.write("y", y)
