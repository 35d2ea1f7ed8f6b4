// Exercise 17: matrix multiply with tiles in shared memory.
//
// c = a b, where a is m x k, b is k x n and c is m x n, all row-major:
//
//     c[row][col] = sum over i of a[row][i] * b[i][col]
//
// In the naive kernel (exercise 11) each thread reads a whole row of `a` and a whole column of
// `b` from global memory: every element of `a` is read n times and every element of `b` m
// times, two loads for each multiply-add. Memory, not arithmetic, sets the speed.
//
// Tiling shares those loads. A block of TILE x TILE threads computes a TILE x TILE tile of `c`.
// It walks along the k dimension one step of TILE at a time. At each step the block copies a
// TILE x TILE tile of `a` and one of `b` into shared memory, one element per thread, and then
// every thread does TILE multiply-adds out of shared memory. Each element fetched from global
// memory now serves TILE threads: the tile of `a` moves right along the block's rows of `a`
// while the tile of `b` moves down the block's columns of `b`.
//
// Launch: blocks of TILE x TILE threads, grid (ceil(n / TILE), ceil(m / TILE)). Thread (tx, ty)
// of block (bx, by) computes c[by * TILE + ty][bx * TILE + tx]. No dimension needs to be a
// multiple of TILE.
//
// Target: on a GPU, at most 1.45x the time of the course's solution (the naive kernel: about
// 1.5x).
//
// Check it with: runner check 17

#define TILE 16

// ANCHOR: kernel
extern "C" __global__ void matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];

    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;

    // `step` is where the current tiles start along the k dimension.
    for (int step = 0; step < k; step += TILE) {
        // TODO: copy this thread's element of the current tile of `a` (the tile in the block's
        // rows) into a_tile, and its element of the current tile of `b` (the tile in the
        // block's columns) into b_tile. Where a tile hangs over the edge of its matrix, store 0.

        // TODO: wait until both tiles are complete.

        // TODO: add this step's TILE products to sum, reading only from the tiles.

        // TODO: wait until every thread is done with the tiles: the next step overwrites them.
    }

    // TODO: write sum to c, if this thread's element is inside the matrix.
}
// ANCHOR_END: kernel
