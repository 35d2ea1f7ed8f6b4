"""Exercise py16: pinned memory, streams and events.

The signal goes to the device in `chunks` pieces; each piece's copy in, kernel and copy out are
queued on a stream of its own, so the copies of one piece run while another's kernel does. Two
things make that possible: the host arrays must be page-locked (cuda.pinned_array), because a
copy from ordinary pageable memory makes the host wait while the driver stages it; and the
copies must be asynchronous, given a stream, with nothing waited for until all is queued.
A third is the size of a chunk: Numba spends a tenth of a millisecond or more of the host's time
on each copy and launch it queues, so a chunk's copies must take longer than that (the largest
case's chunks are 32 MB, about 0.7 ms each way on an H100), or the GPU finishes each chunk
before the next is queued and nothing overlaps.

Events are marks on the GPU's own timeline: start.record() before the work, and end.record()
once every stream's work is done; end.synchronize() waits for the mark, and
cuda.event_elapsed_time(start, end) is the time between the two, in milliseconds, measured on
the GPU.
"""

import hostkit
import numpy as np
from numba import cuda, float32

task = hostkit.Task.open()
signal = task.read("signal")
chunks, rounds = task.param("chunks"), task.param("rounds")

THREADS = 256


@cuda.jit
def transform(x, out, rounds):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        for _ in range(rounds):
            v = v * float32(0.5) + float32(1) / (v * v + float32(1))
        out[i] = v


n = signal.size
chunk = (n + chunks - 1) // chunks
parts = [slice(c * chunk, min(n, (c + 1) * chunk)) for c in range(chunks)]
# TODO: page-locked host arrays for the signal and the result (cuda.pinned_array); copy the
# signal into the first.
host_in = cuda.pinned_array(n, dtype=np.float32)
host_out = cuda.pinned_array(n, dtype=np.float32)
host_in[:] = signal
device_in = cuda.device_array(n, dtype=np.float32)
device_out = cuda.device_array(n, dtype=np.float32)
# Each chunk's views of the device arrays, made once: Numba takes host time for every view, and
# host time spent in the loop is time the GPU may sit idle.
device_ins = [device_in[part] for part in parts]
device_outs = [device_out[part] for part in parts]
# TODO: a stream for each chunk, and two events; record the first before queueing any work.
streams = [cuda.stream() for _ in range(chunks)]
start, end = cuda.event(), cuda.event()
start.record()
for c, part in enumerate(parts):
    blocks = (part.stop - part.start + THREADS - 1) // THREADS
    # TODO: on the chunk's own stream: copy host_in[part] into device_ins[c], launch transform
    # on device_ins[c] and device_outs[c], copy device_outs[c] back into host_out[part].
    stream = streams[c]
    device_ins[c].copy_to_device(host_in[part], stream=stream)
    transform[blocks, THREADS, stream](device_ins[c], device_outs[c], rounds)
    device_outs[c].copy_to_host(host_out[part], stream=stream)
# TODO: wait for every stream, record the second event, wait for it, and print the time
# between the two.
for stream in streams:
    stream.synchronize()
end.record()
end.synchronize()
print(f"{chunks} chunks on {chunks} streams: {cuda.event_elapsed_time(start, end):.3f} ms")
task.write("signal", host_out)
