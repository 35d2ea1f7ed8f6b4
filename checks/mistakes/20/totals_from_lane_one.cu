// Exercise 20: a block-wide sum with warp shuffles.
//
// The same job as exercise 19: each block adds up its BLOCK_SIZE elements of `in` (0 past the
// end) and writes the total to partial[blockIdx.x].
//
// The 32 lanes of a warp can pass registers to each other without shared memory or barriers:
// __shfl_down_sync(FULL_MASK, v, offset) returns, in lane L, the value v of lane L + offset
// (lanes past 31 get their own v back). Every lane of the mask must take part in the call.
//
// The plan: each warp sums its 32 values with shuffles; lane 0 of each warp puts the warp's total
// in shared memory (8 floats instead of 256); after one barrier, the first warp sums those 8
// totals with shuffles again, and thread 0 writes the block's total. One barrier in all, where
// exercise 19 needs one per step.
//
// Launch: ceil(n / BLOCK_SIZE) blocks of BLOCK_SIZE threads.
//
// Target: on a GPU, at most 1.2x the time of the course's solution (exercise 19's way takes
// about 1.3x).
//
// Check it with: runner check 20

#define BLOCK_SIZE 256
#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu

// ANCHOR: warp_sum
// The sum of `value` over the 32 lanes of the calling warp, in lane 0.
__device__ float warp_sum(float value)
{
    // TODO: add to `value` the values of the lanes 16, 8, 4, 2 and 1 places further down the
    // warp, one shuffle at a time.
    // After the step with offset o, lane L holds the sum of lanes L .. L + 2o - 1: the sums
    // double in width each step, and after five steps lane 0 holds all 32. (The other lanes
    // end with partial sums nobody reads.)
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
        value += __shfl_down_sync(FULL_MASK, value, offset);
    }
    return value;
}
// ANCHOR_END: warp_sum

// ANCHOR: kernel
extern "C" __global__ void reduce_shuffle(const float* in, float* partial, int n)
{
    // One slot per warp of the block.
    __shared__ float warp_totals[BLOCK_SIZE / WARP_SIZE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % WARP_SIZE;
    int warp = threadIdx.x / WARP_SIZE;
    // Threads past the end still take part in the shuffles, with nothing to add.
    float value = i < n ? in[i] : 0.0f;

    // TODO: sum the warp's values; lane 0 of each warp stores its warp's total in warp_totals.
    value = warp_sum(value);
    if (lane == 1) {
        warp_totals[warp] = value;
    }

    // TODO: wait until every warp's total is stored.
    // The first warp is about to read totals written by the other warps.
    __syncthreads();

    // TODO: the first warp sums the warp totals (a lane with no total to take contributes 0),
    // and thread 0 writes the block's total.
    // The whole first warp enters warp_sum, so that every lane the mask names takes part.
    if (warp == 0) {
        float total = lane < BLOCK_SIZE / WARP_SIZE ? warp_totals[lane] : 0.0f;
        total = warp_sum(total);
        if (lane == 0) {
            partial[blockIdx.x] = total;
        }
    }
}
// ANCHOR_END: kernel
