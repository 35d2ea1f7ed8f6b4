// Exercise 02: vector add, c = a + b.
//
// One thread per element. The runner launches ceil(n / 256) blocks of 256 threads, so when n is
// not a multiple of 256 the last block has threads with no element to work on.
//
// Check it with: runner check 02

// ANCHOR: kernel
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    // TODO: compute this thread's global index.
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: guard against threads past the end of the arrays, then add one element.
    // One thread per element; the guard stops the threads of the last block that have none.
    if (i < n - 1) {
        c[i] = a[i] + b[i];
    }
}
// ANCHOR_END: kernel
