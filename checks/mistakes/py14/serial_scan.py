"""A typical mistake of py14: a block's scan done by one thread, element by element.

Exercise py14: a prefix sum (scan) of a whole array.

out[i] = x[0] + x[1] + ... + x[i]. Three launches: scan_blocks scans each block's BLOCK elements
in shared memory and writes each block's total to block_sums; the same kernel, on one block,
scans those totals; add_offsets adds to every element of block b the total of all blocks
before it.

The block scan doubles its reach at each step (Hillis and Steele): at step `offset` = 1, 2, 4,
..., thread t adds the value offset places before it, if there is one. All threads must read
their value before any thread adds to its own: a barrier between the reads and the writes, and
another before the next step's reads.
"""

import hostkit
from numba import cuda, int32

task = hostkit.Task.open()
x = task.read("x", "i32")

BLOCK = 256


@cuda.jit
def scan_blocks(x, out, block_sums):
    tile = cuda.shared.array(BLOCK, int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    # One thread walks the tile, adding each element's predecessor: right, but 255 steps one
    # after another while the block's other 255 threads wait.
    if t == 0:
        for j in range(1, BLOCK):
            tile[j] += tile[j - 1]
    cuda.syncthreads()
    if i < x.size:
        out[i] = tile[t]
    if t == BLOCK - 1:
        block_sums[cuda.blockIdx.x] = tile[t]


@cuda.jit
def add_offsets(out, scanned_sums):
    i = cuda.grid(1)
    b = cuda.blockIdx.x
    if b > 0 and i < out.size:
        out[i] += scanned_sums[b - 1]


# One block scans the blocks' totals, so at most BLOCK blocks: n <= 65536.
blocks = (x.size + BLOCK - 1) // BLOCK
device_out = cuda.device_array_like(x)
block_sums = cuda.device_array(blocks, dtype=x.dtype)
scanned_sums = cuda.device_array(blocks, dtype=x.dtype)
unused = cuda.device_array(1, dtype=x.dtype)
scan_blocks[blocks, BLOCK](cuda.to_device(x), device_out, block_sums)
scan_blocks[1, BLOCK](block_sums, scanned_sums, unused)
add_offsets[blocks, BLOCK](device_out, scanned_sums)
task.write("out", device_out.copy_to_host(), "i32")
