"""py05 variant: a fixed grid of 4 blocks of 32 threads walks over the generators in a grid-stride
loop (cuda.grid(1), cuda.gridsize(1)): each pass draws from the state of the generator it is at,
so generator g is still used by one thread only."""

import hostkit
import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

task = hostkit.Task.open()
seed = task.param("seed")
threads = task.param("threads")
draws = task.param("draws")


@cuda.jit
def count_hits(states, draws, hits):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for g in range(start, hits.shape[0], stride):
        inside = 0
        for _ in range(draws):
            x = xoroshiro128p_uniform_float32(states, g)
            y = xoroshiro128p_uniform_float32(states, g)
            if x * x + y * y <= 1.0:
                inside += 1
        hits[g] = inside


states = create_xoroshiro128p_states(threads, seed=seed)
device_hits = cuda.device_array(threads, dtype=np.int32)
count_hits[4, 32](states, draws, device_hits)
task.write("hits", device_hits.copy_to_host(), "i32")
