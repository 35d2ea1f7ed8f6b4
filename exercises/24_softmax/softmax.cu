// Exercise 24 (capstone): a fused row softmax, fast.
//
// For each row x of a rows x cols matrix (row-major), softmax writes the row y with
//
//     y[j] = exp(x[j] - m) / sum over k of exp(x[k] - m),   m = the max of the row.
//
// Subtracting m changes nothing mathematically and everything numerically: exp(100) overflows
// a float, so without it a row holding 100 comes out as inf / inf = NaN, and a row of values
// around -200 as 0 / 0. With it, the largest term is exp(0) = 1.
//
// Softmax is often written as several kernels (a max, an exp, a sum, a division), each one a trip
// through global memory. Here one kernel does it all, and one block owns each row:
//   1. each thread takes the max of its elements of the row, and the block combines the
//      threads' maxima so that every thread knows m;
//   2. likewise for the sum of exp(x[j] - m);
//   3. each thread writes exp(x[j] - m) / sum for its elements.
// Thread t's elements are j = t, t + BLOCK_SIZE, t + 2 * BLOCK_SIZE, ... < cols: at each step
// the block reads BLOCK_SIZE consecutive floats, coalesced. Steps 2 and 3 read the row again,
// and find it in the cache.
//
// The block combines values as in exercise 20: within each warp by shuffles, then across the
// warps through `scratch` in shared memory, one slot per warp.
//
// Launch: one block of BLOCK_SIZE threads per row (grid = rows). cols can be anything from 1 to
// many thousands.
//
// Target: on a GPU, at most 2x the time of the course's solution.
//
// Check it with: runner check 24

#define BLOCK_SIZE 256
#define WARP_SIZE 32
#define WARPS (BLOCK_SIZE / WARP_SIZE)
#define FULL_MASK 0xffffffffu
// -infinity, the identity of max: NVRTC has no math.h to define INFINITY.
#define NEG_INFINITY __int_as_float(0xff800000)

// ANCHOR: warp
// The max of `value` over the 32 lanes of the calling warp, returned in every lane.
__device__ float warp_max(float value)
{
    // TODO: exchange values with the other lanes until every lane holds the max of all 32.
    return value;
}

// The sum of `value` over the 32 lanes of the calling warp, returned in every lane.
__device__ float warp_sum(float value)
{
    // TODO: the same exchanges, adding instead of taking the max.
    return value;
}
// ANCHOR_END: warp

// ANCHOR: block
// The max of `value` over the block, returned in every thread. Every thread of the block must
// call it; `scratch` is WARPS floats of shared memory, free for reuse when it returns.
__device__ float block_max(float value, float* scratch)
{
    // TODO: the warps' maxima through `scratch`, then the max of those.
    return value;
}

// The sum of `value` over the block, returned in every thread, on the same terms.
__device__ float block_sum(float value, float* scratch)
{
    // TODO: the warps' sums through `scratch`, then the sum of those.
    return value;
}
// ANCHOR_END: block

// ANCHOR: kernel
extern "C" __global__ void softmax_rows(const float* in, float* out, int rows, int cols)
{
    __shared__ float scratch[WARPS];
    // This block's row of the input and of the output.
    const float* x = in + (size_t)blockIdx.x * cols;
    float* y = out + (size_t)blockIdx.x * cols;

    // TODO: 1. the row's max, known to every thread.

    // TODO: 2. the sum of expf(x[j] - max) over the row, known to every thread.

    // TODO: 3. write y[j] = expf(x[j] - max) / sum for this thread's elements.
}
// ANCHOR_END: kernel
