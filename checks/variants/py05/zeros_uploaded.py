"""py05 with the counts' array made on the host as zeros and uploaded, the way many first
write an output array, and the hits added to rather than stored."""

import math

import hostkit
import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

task = hostkit.Task.open()
seed = task.param("seed")
threads = task.param("threads")
draws = task.param("draws")


@cuda.jit
def count_hits(rng_states, n_draws, hits):
    tid = cuda.grid(1)
    if tid >= hits.shape[0]:
        return
    for _ in range(n_draws):
        x = xoroshiro128p_uniform_float32(rng_states, tid)
        y = xoroshiro128p_uniform_float32(rng_states, tid)
        if x * x + y * y <= 1.0:
            hits[tid] += 1


rng_states = create_xoroshiro128p_states(threads, seed=seed)
d_hits = cuda.to_device(np.zeros(threads, dtype=np.int32))
block = 256
grid = math.ceil(threads / block)
count_hits[grid, block](rng_states, draws, d_hits)
cuda.synchronize()
hits = d_hits.copy_to_host()
task.write("hits", hits, "i32")
