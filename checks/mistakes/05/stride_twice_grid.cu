// Exercise 05: a grid-stride loop.
//
// Until now the runner launched one thread per element. Here it launches a small grid that it
// chooses (a few blocks: on the large cases, far fewer threads than elements) and every thread
// must handle several elements: its own index i, then i + stride, i + 2 * stride, ... where the
// stride is the number of threads in the whole grid. A kernel written this way is right for any
// grid, so the grid can be sized to the GPU instead of to the data.
//
// The kernel is SAXPY ("single-precision a times x plus y"), in place:
//
//     y[i] = a * x[i] + y[i]    for every i < n
//
// Each element must be updated exactly once: a thread that updates an element twice, or two
// threads that both update it, leave a wrong value behind.
//
// Check it with: runner check 05

// ANCHOR: kernel
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    // TODO: compute this thread's global index, and the number of threads in the whole grid
    // (gridDim.x is the number of blocks).
    int first = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = 2 * gridDim.x * blockDim.x;

    // TODO: loop from the global index up to n in steps of the grid's thread count, updating
    // y at each index.
    // On every pass the grid's threads take consecutive elements, so a warp reads and writes
    // one contiguous stretch of memory. The loop's condition is also the bounds guard: a thread
    // whose first index is already past n does nothing.
    for (int i = first; i < n; i += stride) {
        y[i] = a * x[i] + y[i];
    }
}
// ANCHOR_END: kernel
