// Mistake: threads past n return before the barrier; the others wait at it and then store
// from the chunk, whose slots the returned threads never filled.
// Exercise 23: find the bug (a missing barrier).
//
// reverse writes `in` backwards into `out`: out[n - 1 - i] = in[i]. Each block reads a chunk of
// BLOCK_SIZE consecutive elements into shared memory, then writes the chunk, reversed, to the
// mirror-image chunk at the other end of `out`: thread t writes what thread BLOCK_SIZE - 1 - t
// read. (A reverse could do without shared memory; it is here because it is the smallest kernel
// in which threads trade data through it, the way the transpose of exercise 16 and the scan of
// exercise 21 do.)
//
// Launch: ceil(n / BLOCK_SIZE) blocks of BLOCK_SIZE threads.
//
// The kernel has a bug. Run `runner check 23`: some elements come out wrong (in the simulator,
// as NaN: what shared memory holds before anyone writes it), and the simulator reports a race
// on shared memory, with the two source lines involved. Work out which thread wrote what the
// other read, and when, then fix the kernel by adding what is missing.
//
// Check it with: runner check 23

#define BLOCK_SIZE 256

// ANCHOR: kernel
extern "C" __global__ void reverse(const float* in, float* out, int n)
{
    __shared__ float chunk[BLOCK_SIZE];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK_SIZE + t;
    if (i >= n) return;
    chunk[t] = in[i];

    // TODO: this kernel has a bug. Find it and fix it.
    // Thread t reads what thread BLOCK_SIZE - 1 - t wrote, always in another warp (warp w reads
    // what warp 7 - w writes), and nothing orders warps unless a barrier does: warp 0 may read
    // before warp 7 has written. Every thread must finish writing before any thread reads.
    __syncthreads();

    // The chunk's element BLOCK_SIZE - 1 - t, which is in[i'] with
    // i' = blockIdx.x * BLOCK_SIZE + BLOCK_SIZE - 1 - t, belongs at out[n - 1 - i'].
    int j = n - (blockIdx.x + 1) * BLOCK_SIZE + t;
    // In the last block, a chunk shorter than BLOCK_SIZE maps to below index 0 for small t.
    if (j >= 0) {
        out[j] = chunk[BLOCK_SIZE - 1 - t];
    }
}
// ANCHOR_END: kernel
