"""py05 mistake: states made for one block's threads (128), not for every thread."""

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
        inside = 0
        # TODO: `draws` times, draw x, then y, from this thread's own generator, and count the
        # point if it lies in the quarter circle.
        for _ in range(draws):
            x = xoroshiro128p_uniform_float32(states, i)
            y = xoroshiro128p_uniform_float32(states, i)
            if x * x + y * y <= 1.0:
                inside += 1
        hits[i] = inside


# TODO: one generator state per thread, from the case's seed.
states = create_xoroshiro128p_states(128, seed=seed)

device_hits = cuda.device_array(threads, dtype=np.int32)
threads_per_block = 128
blocks = (threads + threads_per_block - 1) // threads_per_block
count_hits[blocks, threads_per_block](states, draws, device_hits)
hits = device_hits.copy_to_host()
print(f"pi is about {4 * hits.sum() / (threads * draws):.4f}")
task.write("hits", hits, "i32")
