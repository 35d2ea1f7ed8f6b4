// Mistake: the column guarded against rows: col < rows
// Exercise 10: add two matrices with a two-dimensional grid.
//
// The matrices have `rows` rows and `cols` columns and are stored row by row ("row-major"):
// element (row, col) is at index row * cols + col. Compute c = a + b.
//
// The runner launches a 2D grid of 2D blocks, 32 threads wide and 8 high, covering the matrix:
// x runs along a row (over the columns), y down a column (over the rows). So each thread has a
// column from the x parts of its indices and a row from the y parts. The grid is rounded up to
// whole blocks in both directions, so some threads of the right and bottom blocks fall outside
// the matrix.
//
// Check it with: runner check 10

// ANCHOR: kernel
extern "C" __global__ void matrix_add(const float* a, const float* b, float* c, int rows, int cols)
{
    // TODO: compute this thread's column (from blockIdx.x, blockDim.x and threadIdx.x) and its
    // row (the same with .y).
    // Column from x: the 32 threads of a warp share a row and take neighbouring columns, so
    // they touch neighbouring addresses.
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;

    // TODO: if the element is inside the matrix, add it.
    // Both bounds are needed: the grid overshoots to the right and at the bottom.
    if (row < rows && col < rows) {
        int i = row * cols + col;
        c[i] = a[i] + b[i];
    }
}
// ANCHOR_END: kernel
