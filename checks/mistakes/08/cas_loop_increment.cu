// Mistake (technique): each increment as an atomicCAS loop: read the bin, CAS in one more until it sticks
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
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned int* bin = &bins[data[i]];
        unsigned int old = *bin, assumed;
        do {
            assumed = old;
            old = atomicCAS(bin, assumed, assumed + 1);
        } while (old != assumed);
    }
}
// ANCHOR_END: kernel
