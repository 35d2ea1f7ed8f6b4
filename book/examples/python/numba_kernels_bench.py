"""The three kernels issue 27 measures (vector add, a tiled transpose with a padded 32x33 tile, a
shared-memory tree reduction), timed wherever Numba runs them: on the course's simulated driver
(`runner run -- python ...`) or in Numba's own simulator (NUMBA_ENABLE_CUDASIM=1). The first launch
(compile) is kept apart; the rest are timed and their results checked against NumPy.

Usage: python numba_kernels_bench.py SCALE [LAUNCHES]: vector add and reduction of 2^SCALE
elements, transpose of a 2^(SCALE/2) square. Prints one line per kernel: BENCH {json}.
"""

import json
import os
import sys
import time

import numpy as np
from numba import cuda, float32

TILE = 32
PADDED = TILE + 1  # a column of padding: no bank conflicts on the transposed read
ROWS = 8
BLOCK = 256


@cuda.jit
def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


@cuda.jit
def transpose(src, dst):
    tile = cuda.shared.array((TILE, PADDED), float32)
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    for j in range(0, TILE, ROWS):
        if x < src.shape[1] and y + j < src.shape[0]:
            tile[cuda.threadIdx.y + j, cuda.threadIdx.x] = src[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.x * TILE + cuda.threadIdx.y
    for j in range(0, TILE, ROWS):
        if x < dst.shape[1] and y + j < dst.shape[0]:
            dst[y + j, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y + j]


@cuda.jit
def reduce_shared(src, sums):
    part = cuda.shared.array(BLOCK, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    part[t] = src[i] if i < src.size else 0.0
    cuda.syncthreads()
    step = BLOCK // 2
    while step > 0:
        if t < step:
            part[t] += part[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        sums[cuda.blockIdx.x] = part[0]


def timed(name, elements, launch, check, launches):
    begin = time.perf_counter()
    launch()
    cuda.synchronize()
    first = time.perf_counter() - begin
    begin = time.perf_counter()
    for _ in range(launches):
        launch()
    cuda.synchronize()
    per_launch = (time.perf_counter() - begin) / launches
    print("BENCH " + json.dumps({
        "kernel": name,
        "where": "numba-cudasim" if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" else "driver",
        "elements": elements,
        "compile_s": max(first - per_launch, 0.0),
        "launch_s": per_launch,
        "elements_per_s": elements / per_launch,
        "right": bool(check()),
    }), flush=True)


def main():
    scale = int(sys.argv[1])
    launches = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    rng = np.random.default_rng(1)
    n = 1 << scale
    a = rng.uniform(-1, 1, n).astype(np.float32)
    b = rng.uniform(-1, 1, n).astype(np.float32)
    da, db, dout = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, np.float32)
    blocks = (n + BLOCK - 1) // BLOCK
    timed("vector_add", n, lambda: vector_add[blocks, BLOCK](da, db, dout),
          lambda: np.array_equal(dout.copy_to_host(), a + b), launches)

    side = 1 << (scale // 2)
    m = rng.uniform(-1, 1, (side, side)).astype(np.float32)
    dm, dt = cuda.to_device(m), cuda.device_array((side, side), np.float32)
    grid = ((side + TILE - 1) // TILE, (side + TILE - 1) // TILE)
    timed("transpose", side * side, lambda: transpose[grid, (TILE, ROWS)](dm, dt),
          lambda: np.array_equal(dt.copy_to_host(), m.T), launches)

    sums = cuda.device_array(blocks, np.float32)
    want = a.reshape(-1, BLOCK).sum(axis=1) if n % BLOCK == 0 else None
    timed("reduce_shared", n, lambda: reduce_shared[blocks, BLOCK](da, sums),
          lambda: want is not None and np.allclose(sums.copy_to_host(), want, atol=1e-4), launches)


main()
