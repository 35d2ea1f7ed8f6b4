"""py05 variant: the point drawn and tested in a @cuda.jit(device=True) function that takes the
states and the thread's index; the count in an int32 array of one per thread filled on a
stream."""

import hostkit
import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

task = hostkit.Task.open()
seed = task.param("seed")
threads = task.param("threads")
draws = task.param("draws")


@cuda.jit(device=True)
def in_circle(states, i):
    x = xoroshiro128p_uniform_float32(states, i)
    y = xoroshiro128p_uniform_float32(states, i)
    return 1 if x * x + y * y <= 1.0 else 0


@cuda.jit
def count_hits(states, draws, hits):
    i = cuda.grid(1)
    if i < hits.size:
        total = 0
        for _ in range(draws):
            total += in_circle(states, i)
        hits[i] = total


states = create_xoroshiro128p_states(threads, seed=seed)
hits = cuda.device_array(threads, dtype=np.int32)
count_hits[(threads + 31) // 32, 32](states, draws, hits)
task.write("hits", hits.copy_to_host(), "i32")
