"""py06 variant: an explicit signature, a stream for every call and copy_to_host into an array."""

import hostkit
import numpy as np
from numba import cuda

task = hostkit.Task.open()
rows = task.param("rows")
cols = task.param("cols")
a = task.read("a").reshape(rows, cols)


@cuda.jit("void(float64[:, :], float64[:, :])")
def smooth(a, out):
    tx = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    ty = cuda.threadIdx.y + cuda.blockIdx.y * cuda.blockDim.y
    if ty >= a.shape[0] or tx >= a.shape[1]:
        return
    if ty > 0 and tx > 0 and ty < a.shape[0] - 1 and tx < a.shape[1] - 1:
        up = a[ty - 1, tx]
        down = a[ty + 1, tx]
        left = a[ty, tx - 1]
        right = a[ty, tx + 1]
        out[ty, tx] = (up + down + left + right) * 0.25
    else:
        out[ty, tx] = a[ty, tx]


stream = cuda.stream()
d_a = cuda.to_device(np.ascontiguousarray(a, dtype=np.float64), stream=stream)
d_out = cuda.device_array((rows, cols), dtype=np.float64, stream=stream)
tpb = (64, 4)
bpg = (-(-cols // tpb[0]), -(-rows // tpb[1]))
smooth[bpg, tpb, stream](d_a, d_out)
result = np.empty((rows, cols), dtype=np.float64)
d_out.copy_to_host(result, stream=stream)
stream.synchronize()
task.write("out", result.ravel())
