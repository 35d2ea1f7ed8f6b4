"""py05 variant: the thread index from threadIdx/blockIdx, hits counted in a float and stored as
an int, the states made on a stream, blocks of 64 and a math.ceil grid."""

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
def count_hits(rng, draws, hits):
    tid = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if tid >= hits.shape[0]:
        return
    inside = 0
    d = 0
    while d < draws:
        px = xoroshiro128p_uniform_float32(rng, tid)
        py = xoroshiro128p_uniform_float32(rng, tid)
        inside += 1 if px * px + py * py <= 1.0 else 0
        d += 1
    hits[tid] = inside


stream = cuda.stream()
rng = create_xoroshiro128p_states(threads, seed=seed, stream=stream)
d_hits = cuda.device_array(threads, dtype=np.int32, stream=stream)
count_hits[math.ceil(threads / 64), 64, stream](rng, draws, d_hits)
hits = d_hits.copy_to_host(stream=stream)
stream.synchronize()
task.write("hits", hits, "i32")
