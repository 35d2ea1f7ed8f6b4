// Exercise 16: transpose a matrix through shared memory.
//
// `in` is a rows x cols matrix, row-major; `out` is its transpose, cols x rows:
//
//     out[c * rows + r] = in[r * cols + c]
//
// transpose_naive below is correct, and half of its memory traffic is wasteful: the threads of
// a warp (consecutive threadIdx.x) read consecutive elements of a row of `in`, 4 sectors per
// request, but write down a column of `out`, addresses `rows` floats apart: 32 sectors for 32
// floats. A transpose cannot make both sides walk along rows by itself.
//
// Shared memory can: a block reads a TILE x TILE tile of `in` row by row (coalesced) into
// shared memory, waits for the whole tile, then writes it to `out` row by row (coalesced too),
// taking each output row from a column of the tile. Reading a column of shared memory is cheap
// (almost: exercise 18 is about the "almost").
//
// Launch: blocks of TILE x TILE threads, grid (ceil(cols / TILE), ceil(rows / TILE)). Block
// (bx, by) transposes the tile of `in` whose top-left element is in[by * TILE][bx * TILE]; in
// `out`, that tile's transpose has its top-left element at out[bx * TILE][by * TILE].
//
// Targets: at most 4 sectors per request, loads and stores together (the simulator measures
// it), and on a GPU at most 1.3x the time of the course's solution (the naive kernel: about 2x).
//
// Check it with: runner check 16

#define TILE 32

// ANCHOR: naive
extern "C" __global__ void transpose_naive(const float* in, float* out, int rows, int cols)
{
    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;
    if (r < rows && c < cols) {
        out[c * rows + r] = in[r * cols + c];
    }
}
// ANCHOR_END: naive

// ANCHOR: kernel
extern "C" __global__ void transpose_tiled(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];

    // The element of `in` this thread reads: row r, column c.
    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;

    // TODO: copy in[r][c] into the tile, at row threadIdx.y and column threadIdx.x, if (r, c) is
    // inside the matrix.
    // A warp is 32 consecutive threadIdx.x: 32 consecutive floats of one row, 4 sectors.
    if (r < rows && c < cols) {
        tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
    }

    // TODO: wait until the whole tile is in shared memory.
    // Each thread is about to read an element that another thread, in another warp, wrote.
    __syncthreads();

    // TODO: write the tile, transposed, to its place in `out`. Keep threadIdx.x as the column
    // (in `out` this time) so that a warp writes consecutive addresses, and mind the edges:
    // `out` has cols rows and rows columns.
    // The same tile seen from `out`: block indices swap, thread indices keep their roles, so
    // the row in `out` is a column of `in` and the column in `out` a row of `in`.
    int out_r = blockIdx.x * TILE + threadIdx.y;
    int out_c = blockIdx.y * TILE + threadIdx.x;
    if (out_r < rows && out_c < cols) {
        // out[out_r][out_c] = in[out_c][out_r], which sits at tile[threadIdx.x][threadIdx.y].
        out[out_r * rows + out_c] = tile[threadIdx.x][threadIdx.y];
    }
}
// ANCHOR_END: kernel
