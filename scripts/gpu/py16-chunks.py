"""py16's pipeline at a chosen size, for measuring how much copy time a GPU hides behind Numba's
host work: `py16-chunks.py N CHUNKS ROUNDS VIEWS` (VIEWS: `slice`, the device arrays sliced in the loop
as the exercise's hint has it; `premade`, every chunk's views made before the loop). Prints the
host's seconds per chunk queued; the driver's record (`runner run --json`) holds the timeline."""

import sys
import time

import numpy as np
from numba import cuda, float32

n, chunks, rounds, views = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
THREADS = 256


@cuda.jit
def transform(x, out, rounds):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        for _ in range(rounds):
            v = v * float32(0.5) + float32(1) / (v * v + float32(1))
        out[i] = v


chunk = (n + chunks - 1) // chunks
parts = [slice(c * chunk, min(n, (c + 1) * chunk)) for c in range(chunks)]
host_in = cuda.pinned_array(n, dtype=np.float32)
host_out = cuda.pinned_array(n, dtype=np.float32)
host_in[:] = np.random.default_rng(1).uniform(-4, 4, n).astype(np.float32)
device_in = cuda.device_array(n, dtype=np.float32)
device_out = cuda.device_array(n, dtype=np.float32)
# Compile before timing, as a second run of the same program would find it cached.
transform[1, THREADS](device_in[:1], device_out[:1], rounds)
cuda.synchronize()
streams = [cuda.stream() for _ in range(chunks)]
if views == "premade":
    ins = [device_in[p] for p in parts]
    outs = [device_out[p] for p in parts]
    hins = [host_in[p] for p in parts]
    houts = [host_out[p] for p in parts]
start, end = cuda.event(), cuda.event()
t0 = time.perf_counter()
start.record()
for c, part in enumerate(parts):
    stream = streams[c]
    blocks = (part.stop - part.start + THREADS - 1) // THREADS
    if views == "premade":
        ins[c].copy_to_device(hins[c], stream=stream)
        transform[blocks, THREADS, stream](ins[c], outs[c], rounds)
        outs[c].copy_to_host(houts[c], stream=stream)
    else:
        device_in[part].copy_to_device(host_in[part], stream=stream)
        transform[blocks, THREADS, stream](device_in[part], device_out[part], rounds)
        device_out[part].copy_to_host(host_out[part], stream=stream)
queued = time.perf_counter() - t0
for s in streams:
    s.synchronize()
end.record()
end.synchronize()
print(f"host_us_per_chunk {queued / chunks * 1e6:.0f} gpu_ms {cuda.event_elapsed_time(start, end):.3f}")
