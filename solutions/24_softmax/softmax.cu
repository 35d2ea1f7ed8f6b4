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
    // Butterfly: lane L swaps with lane L ^ offset. After the step with offset o every lane
    // holds the max of its group of 2o lanes, so after five steps every lane holds all 32's.
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
        value = fmaxf(value, __shfl_xor_sync(FULL_MASK, value, offset));
    }
    return value;
}

// The sum of `value` over the 32 lanes of the calling warp, returned in every lane.
__device__ float warp_sum(float value)
{
    // TODO: the same exchanges, adding instead of taking the max.
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
        value += __shfl_xor_sync(FULL_MASK, value, offset);
    }
    return value;
}
// ANCHOR_END: warp

// ANCHOR: block
// The max of `value` over the block, returned in every thread. Every thread of the block must
// call it; `scratch` is WARPS floats of shared memory, free for reuse when it returns.
__device__ float block_max(float value, float* scratch)
{
    // TODO: the warps' maxima through `scratch`, then the max of those.
    int lane = threadIdx.x % WARP_SIZE;
    int warp = threadIdx.x / WARP_SIZE;
    value = warp_max(value);
    if (lane == 0) {
        scratch[warp] = value;
    }
    __syncthreads();
    // Every warp combines the WARPS maxima itself (a broadcast read of a few words), so the
    // result reaches every thread without another trip through shared memory.
    value = warp_max(lane < WARPS ? scratch[lane] : NEG_INFINITY);
    // The next call writes `scratch` again: every warp must have read it first.
    __syncthreads();
    return value;
}

// The sum of `value` over the block, returned in every thread, on the same terms.
__device__ float block_sum(float value, float* scratch)
{
    // TODO: the warps' sums through `scratch`, then the sum of those.
    int lane = threadIdx.x % WARP_SIZE;
    int warp = threadIdx.x / WARP_SIZE;
    value = warp_sum(value);
    if (lane == 0) {
        scratch[warp] = value;
    }
    __syncthreads();
    value = warp_sum(lane < WARPS ? scratch[lane] : 0.0f);
    __syncthreads();
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
    // Threads with no element (cols < BLOCK_SIZE) bring -infinity, which changes no max.
    float thread_max = NEG_INFINITY;
    for (int j = threadIdx.x; j < cols; j += BLOCK_SIZE) {
        thread_max = fmaxf(thread_max, x[j]);
    }
    float row_max = block_max(thread_max, scratch);

    // TODO: 2. the sum of expf(x[j] - max) over the row, known to every thread.
    // This pass reads the row again: a row of a few thousand floats is still in L1 or L2.
    float thread_sum = 0.0f;
    for (int j = threadIdx.x; j < cols; j += BLOCK_SIZE) {
        thread_sum += expf(x[j] - row_max);
    }
    float row_sum = block_sum(thread_sum, scratch);

    // TODO: 3. write y[j] = expf(x[j] - max) / sum for this thread's elements.
    // One division per row, one multiplication per element. Recomputing expf is cheaper than
    // storing the exponentials and reading them back.
    float scale = 1.0f / row_sum;
    for (int j = threadIdx.x; j < cols; j += BLOCK_SIZE) {
        y[j] = expf(x[j] - row_max) * scale;
    }
}
// ANCHOR_END: kernel
