// Exercise 08: a histogram with atomics.
//
// Count how often each byte value occurs in `data`: afterwards bins[v] holds the number of
// bytes equal to v, for each of the 256 values. The runner sets every bin to 0 before the
// launch.
//
// Many threads meet bytes of the same value at the same time, so they add to the same bin at
// once: each addition must be atomic (exercise 07). The runner launches a small, fixed grid of
// 256-thread blocks, smaller than the data: each thread handles many bytes with a grid-stride
// loop (exercise 05).
//
// Check it with: runner check 08

// ANCHOR: kernel
extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int n)
{
    // TODO: go over the bytes of data with a grid-stride loop, and add one to the bin of each
    // byte's value. Every addition to a bin must be atomic.

    // `atomicAdd(&bins[data[i]], 1u)` in the loop alone is correct. This solution goes one step
    // further: each block first counts into its own private copy of the histogram in shared
    // memory (chapter "Shared memory"), where atomics are cheap and only the block's own 256
    // threads compete, then adds its 256 totals to the global bins once. The global atomics
    // drop from one per byte to 256 per block.
    __shared__ unsigned int block_bins[256];
    if (threadIdx.x < 32) {
        block_bins[threadIdx.x] = 0;
    }
    // No thread may count before every bin of the block's copy is zero.
    __syncthreads();

    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&block_bins[data[i]], 1u);
    }
    // Every thread of the block must have counted before the totals are read.
    __syncthreads();

    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        if (block_bins[b] != 0) {
            atomicAdd(&bins[b], block_bins[b]);
        }
    }
}
// ANCHOR_END: kernel
