// Exercise 19: a block-wide sum with sequential addressing.
//
// Each block adds up its BLOCK_SIZE elements of `in` (0 past the end) and writes the total to
// partial[blockIdx.x]. Adding up the partial sums is left to the host or to a second launch of
// the same kernel; the check compares the partial sums.
//
// The sum is a tree: in each step, half of the threads that are still active each add two
// partial sums in shared memory, until one is left after log2(BLOCK_SIZE) steps.
//
// reduce_interleaved below is correct. Its active threads are packed at the front of the block,
// so whole warps drop out together, but thread t works on sums[2 * stride * t]: at stride 1 the
// lanes of a warp touch every second word (a 2-way bank conflict), at stride 2 every fourth
// (4-way), and so on up to 8-way with BLOCK_SIZE 256 (from stride 8 on, fewer lanes are active).
//
// Write reduce_sequential: the same tree, in which the active threads t = 0, 1, 2, ... read
// consecutive words: thread t adds sums[t + stride] into sums[t], with stride starting at half
// the block and halving each step. Active threads stay packed at the front (no divergence
// within a warp until fewer than 32 are left), and no bank is asked for two words at once.
//
// Launch: ceil(n / BLOCK_SIZE) blocks of BLOCK_SIZE threads.
//
// Targets: no bank conflicts (the simulator), and on a GPU at most 1.15x the time of the course's
// solution.
//
// Check it with: runner check 19

#define BLOCK_SIZE 256

// ANCHOR: interleaved
extern "C" __global__ void reduce_interleaved(const float* in, float* partial, int n)
{
    __shared__ float sums[BLOCK_SIZE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sums[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();

    for (int stride = 1; stride < BLOCK_SIZE; stride *= 2) {
        int index = 2 * stride * threadIdx.x;
        if (index < BLOCK_SIZE) {
            sums[index] += sums[index + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sums[0];
    }
}
// ANCHOR_END: interleaved

// ANCHOR: kernel
extern "C" __global__ void reduce_sequential(const float* in, float* partial, int n)
{
    __shared__ float sums[BLOCK_SIZE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sums[threadIdx.x] = in[i];
    __syncthreads();

    // TODO: the tree of additions with sequential addressing, with a barrier after each step.
    // The active threads are 0 .. stride-1 and read words t and t + stride: a warp reads 32
    // consecutive words twice, one per bank each time.
    for (int stride = BLOCK_SIZE / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            sums[threadIdx.x] += sums[threadIdx.x + stride];
        }
        // The next step reads sums that other threads, in other warps, have just written.
        __syncthreads();
    }

    // TODO: one thread writes the block's total.
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sums[0];
    }
}
// ANCHOR_END: kernel
