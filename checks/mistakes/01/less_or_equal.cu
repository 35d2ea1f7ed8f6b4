// Mistake: off by one: i <= n lets thread n write one element past the end
// Exercise 01: your first kernel.
//
// The runner launches enough blocks of 256 threads to cover `n` elements. Every thread must
// write its own global index into `out`: thread 0 of block 0 writes 0, thread 0 of block 1
// writes 256, and so on. There are usually more threads than elements.
//
// Check it with: runner check 01

// ANCHOR: kernel
extern "C" __global__ void write_index(int* out, int n)
{
    // TODO: compute this thread's global index from blockIdx.x, blockDim.x and threadIdx.x.
    // Blocks before this one hold blockIdx.x * blockDim.x threads; threadIdx.x counts within it.
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: if the index is inside the array, write it to out.
    // The last block may have threads past the end: they must not write.
    if (i <= n) {
        out[i] = i;
    }
}
// ANCHOR_END: kernel
