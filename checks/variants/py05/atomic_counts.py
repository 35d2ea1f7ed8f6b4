"""py05 variant: each thread adds its hits one at a time with cuda.atomic.add into a zeroed
device array (cuda.device_array, then a kernel that zeroes it), on an explicit stream, the
points as a tuple draw; blocks from the device's warp size."""

import hostkit
import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

task = hostkit.Task.open()
seed = task.param("seed")
threads = task.param("threads")
draws = task.param("draws")


@cuda.jit
def zero(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = 0


@cuda.jit
def count_hits(states, draws, hits):
    i = cuda.grid(1)
    if i < hits.size:
        for _ in range(draws):
            x, y = xoroshiro128p_uniform_float32(states, i), xoroshiro128p_uniform_float32(states, i)
            if x * x + y * y <= 1.0:
                cuda.atomic.add(hits, i, 1)


stream = cuda.stream()
states = create_xoroshiro128p_states(threads, seed=seed, subsequence_start=0, stream=stream)
hits = cuda.device_array(threads, dtype=np.int32, stream=stream)
per_block = 4 * 32
grid = (threads + per_block - 1) // per_block
zero[grid, per_block, stream](hits)
count_hits[grid, per_block, stream](states, draws, hits)
out = np.empty(threads, dtype=np.int32)
hits.copy_to_host(out, stream=stream)
stream.synchronize()
task.write("hits", out, "i32")
