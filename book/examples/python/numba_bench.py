"""The same Numba kernel (exercise py03's hypot with a grid-stride loop), timed wherever it runs:
on a GPU, on the course's simulated driver (`runner run -- python ...`), or in Numba's own
simulator (NUMBA_ENABLE_CUDASIM=1). One thread per element, so threads per second is elements
per second. The first launch compiles the kernel; it is reported apart from the timed launches.

Usage: python numba_bench.py THREADS [LAUNCHES]. Prints one line: BENCH {json}.
"""

import json
import math
import os
import sys
import time

import numpy as np
from numba import cuda


# ANCHOR: kernel
@cuda.jit
def hypot_stride(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.size, stride):
        out[i] = math.hypot(x[i], y[i])
# ANCHOR_END: kernel


def main():
    threads = int(sys.argv[1])
    launches = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rng = np.random.default_rng(1)
    x = cuda.to_device(rng.uniform(-1, 1, threads).astype(np.float32))
    y = cuda.to_device(rng.uniform(-1, 1, threads).astype(np.float32))
    out = cuda.device_array(threads, dtype=np.float32)
    per_block = 128
    blocks = (threads + per_block - 1) // per_block

    begin = time.perf_counter()
    hypot_stride[blocks, per_block](x, y, out)
    cuda.synchronize()
    first = time.perf_counter() - begin

    begin = time.perf_counter()
    for _ in range(launches):
        hypot_stride[blocks, per_block](x, y, out)
    cuda.synchronize()
    per_launch = (time.perf_counter() - begin) / launches

    want = np.hypot(x.copy_to_host(), y.copy_to_host())
    right = bool(np.allclose(out.copy_to_host(), want, rtol=1e-5, atol=1e-6))
    print("BENCH " + json.dumps({
        "where": "numba-cudasim" if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" else "driver",
        "threads": threads,
        "launches": launches,
        "first_launch_s": first,
        "compile_s": max(first - per_launch, 0.0),
        "launch_s": per_launch,
        "threads_per_s": threads / per_launch,
        "right": right,
    }))


main()
