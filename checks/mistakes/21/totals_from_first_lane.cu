// Exercise 21: a block-wide prefix sum (inclusive scan).
//
// Each block scans its own BLOCK_SIZE elements of `in`: out[i] is the sum of the elements of
// i's block from the block's first one up to and including in[i]. For in = 3 1 4 1 5 and one
// block, out = 3 4 8 9 14. (Scanning the whole array takes a second pass that adds each block's
// total to the blocks after it; this exercise is the part that does the work.)
//
// The plan, in two levels, like the reduction of exercise 20:
//   1. each warp scans its 32 values with shuffles: in step s, lane L adds the value that lane
//      L - s holds, for s = 1, 2, 4, 8, 16 (__shfl_up_sync(FULL_MASK, v, s) returns, in lane L,
//      v of lane L - s, and lanes below s get their own v back, which they must not add);
//   2. the last lane of each warp, which now holds its warp's total, stores it in shared memory;
//   3. after a barrier, the first warp scans those 8 totals in place;
//   4. after another barrier, each thread adds the totals of the warps before its own.
//
// Launch: ceil(n / BLOCK_SIZE) blocks of BLOCK_SIZE threads. Integers, so the result is exact.
//
// Check it with: runner check 21

#define BLOCK_SIZE 256
#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu

// ANCHOR: warp_scan
// Inclusive scan across the calling warp: lane L returns the sum of `value` over lanes 0 .. L.
__device__ int warp_inclusive_scan(int value)
{
    int lane = threadIdx.x % WARP_SIZE;
    // TODO: step 1 of the plan.
    // Hillis-Steele: after the step with offset s, lane L holds the sum of lanes
    // max(0, L - 2s + 1) .. L. Every lane shuffles (the mask names all 32); only the lanes
    // that have a lane s places below them add.
    for (int offset = 1; offset < WARP_SIZE; offset *= 2) {
        int below = __shfl_up_sync(FULL_MASK, value, offset);
        if (lane >= offset) {
            value += below;
        }
    }
    return value;
}
// ANCHOR_END: warp_scan

// ANCHOR: kernel
extern "C" __global__ void scan_blocks(const int* in, int* out, int n)
{
    // warp_totals[w]: the total of warp w, then, after step 3, of warps 0 .. w.
    __shared__ int warp_totals[BLOCK_SIZE / WARP_SIZE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % WARP_SIZE;
    int warp = threadIdx.x / WARP_SIZE;
    // Threads past the end take part with 0: they come after every real element of the block.
    int value = i < n ? in[i] : 0;

    // TODO: steps 1 and 2.
    value = warp_inclusive_scan(value);
    if (lane == 0) {
        warp_totals[warp] = value;
    }

    // TODO: step 3, between two barriers.
    // Before: every warp's total must be stored. After: the scanned totals must be, before
    // anyone adds them.
    __syncthreads();
    if (warp == 0) {
        int total = lane < BLOCK_SIZE / WARP_SIZE ? warp_totals[lane] : 0;
        total = warp_inclusive_scan(total);
        if (lane < BLOCK_SIZE / WARP_SIZE) {
            warp_totals[lane] = total;
        }
    }
    __syncthreads();

    // TODO: step 4, and write out[i] for the threads that have an element.
    // Warp 0 has nothing before it; warp w adds the scanned total of warps 0 .. w - 1.
    if (warp > 0) {
        value += warp_totals[warp - 1];
    }
    if (i < n) {
        out[i] = value;
    }
}
// ANCHOR_END: kernel
