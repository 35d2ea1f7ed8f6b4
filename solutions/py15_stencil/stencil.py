"""Exercise py15: a 1D stencil with its halo in shared memory.

out[i] = x[i - RADIUS] + ... + x[i + RADIUS], an element past either end counting as 0. Read
straight from global memory, each element of x is loaded 2 * RADIUS + 1 times, once for every
window it is in. Through shared memory each block loads its THREADS elements once, plus RADIUS
on each side (the halo) that its windows reach into, waits, and sums every window from the tile.
"""

import hostkit
from numba import cuda, float32

task = hostkit.Task.open()
x = task.read("x")

RADIUS = 3
THREADS = 128
WIDTH = THREADS + 2 * RADIUS


@cuda.jit
def stencil(x, out):
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    # TODO: a shared tile of WIDTH float32s; thread t puts x[i] at tile[t + RADIUS] (0 past the
    # end), and the first RADIUS threads also load the halo: x[i - RADIUS] into tile[t] and
    # x[i + THREADS] into tile[t + THREADS + RADIUS] (0 outside x). Then wait for the block.
    tile = cuda.shared.array(WIDTH, float32)
    tile[t + RADIUS] = x[i] if i < x.size else float32(0)
    if t < RADIUS:
        left, right = i - RADIUS, i + THREADS
        tile[t] = x[left] if 0 <= left < x.size else float32(0)
        tile[t + THREADS + RADIUS] = x[right] if right < x.size else float32(0)
    cuda.syncthreads()
    if i < x.size:
        total = float32(0)
        # TODO: add the window's 2 * RADIUS + 1 elements, from the tile.
        for j in range(2 * RADIUS + 1):
            total += tile[t + j]
        out[i] = total


blocks = (x.size + THREADS - 1) // THREADS
device_out = cuda.device_array_like(x)
stencil[blocks, THREADS](cuda.to_device(x), device_out)
task.write("out", device_out.copy_to_host())
