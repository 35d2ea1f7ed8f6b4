"""py05 variant: the states array made with cuda.device_array(dtype=xoroshiro128p_dtype) and
filled by init_xoroshiro128p_states, an explicit signature with the generator's record type
(xoroshiro128p_type) and numba.int32, the hits kept in a local numba.int32."""

import hostkit
import numba
import numpy as np
from numba import cuda
from numba.cuda.random import (
    init_xoroshiro128p_states,
    xoroshiro128p_dtype,
    xoroshiro128p_type,
    xoroshiro128p_uniform_float32,
)

task = hostkit.Task.open()
seed = task.param("seed")
threads = task.param("threads")
draws = task.param("draws")


@cuda.jit(numba.void(xoroshiro128p_type[::1], numba.int32, numba.int32[::1]))
def count_hits(states, draws, hits):
    i = cuda.grid(1)
    if i >= hits.size:
        return
    inside = numba.int32(0)
    for _ in range(draws):
        x = xoroshiro128p_uniform_float32(states, i)
        y = xoroshiro128p_uniform_float32(states, i)
        if x * x + y * y <= numba.float32(1.0):
            inside += 1
    hits[i] = inside


states = cuda.device_array(threads, dtype=xoroshiro128p_dtype)
init_xoroshiro128p_states(states, seed)
hits = cuda.device_array(threads, dtype=np.int32)
per_block = 256
count_hits[(threads + per_block - 1) // per_block, per_block](states, draws, hits)
task.write("hits", hits.copy_to_host(), "i32")
