"""py05 variant: the draws' count passed as np.int32, the unit circle's 1.0 as np.float32, the
seed as a positional argument, the hits copied back into a host array (device_array_like)."""

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
def count_hits(states, draws, hits):
    i = cuda.grid(1)
    if i < hits.size:
        n = 0
        for _ in range(draws):
            a = xoroshiro128p_uniform_float32(states, i)
            b = xoroshiro128p_uniform_float32(states, i)
            if a * a + b * b <= np.float32(1.0):
                n += 1
        hits[i] = n


states = create_xoroshiro128p_states(threads, seed)
hits = np.zeros(threads, dtype=np.int32)
d_hits = cuda.device_array_like(hits)
count_hits[(threads + 255) // 256, 256](states, np.int32(draws), d_hits)
d_hits.copy_to_host(hits)
task.write("hits", hits, "i32")
