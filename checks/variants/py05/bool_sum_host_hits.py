"""py05 variant: the hits array passed to the kernel as a NumPy array (Numba copies it in and
back), the comparison's boolean added to the count, the draws as a keyword-free while loop
counting down, and a 2D-free launch with cuda.threadIdx/blockIdx/blockDim."""

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
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < len(hits):
        inside = 0
        left = draws
        while left > 0:
            x = xoroshiro128p_uniform_float32(states, i)
            y = xoroshiro128p_uniform_float32(states, i)
            inside += x * x + y * y <= 1.0
            left -= 1
        hits[i] = inside


states = create_xoroshiro128p_states(threads, seed)
hits = np.zeros(threads, dtype=np.int32)
count_hits[threads // 64 + 1, 64](states, draws, hits)
print("pi is about", 4 * hits.sum() / (threads * draws))
task.write("hits", hits, "i32")
