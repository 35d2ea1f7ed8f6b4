// Mistake: the barrier between filling the tile and reading it left out: a thread reads a
// tile element another warp has not written yet.
// Exercise 18: transpose without bank conflicts.
//
// Shared memory is split into 32 banks, 4-byte word w in bank w % 32. A bank serves one word
// per cycle, so when the 32 lanes of a warp touch 32 different words that share a bank, the
// accesses queue up one after another: a 32-way bank conflict. (Lanes reading the same word are
// served together: a broadcast.)
//
// transpose_tiled below is exercise 16's solution. Its write phase reads tile[threadIdx.x][ty]:
// a warp walks down a column of the tile. A row of the tile is TILE = 32 floats, so every
// element of a column lies in the same bank, and each of those reads is a 32-way conflict.
//
// Write transpose_conflict_free: the same transpose, with a tile whose column elements fall in
// 32 different banks. The runner launches it exactly like transpose_tiled.
//
// Targets: no bank conflicts, and still at most 4 sectors per request in global memory (the
// simulator measures both); on a GPU, at most 1.3x the time of the course's solution
// (transpose_tiled takes about 1.7x).
//
// Check it with: runner check 18

#define TILE 32

// ANCHOR: conflicted
extern "C" __global__ void transpose_tiled(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;
    if (r < rows && c < cols) {
        tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
    }
    __syncthreads();
    int out_r = blockIdx.x * TILE + threadIdx.y;
    int out_c = blockIdx.y * TILE + threadIdx.x;
    if (out_r < cols && out_c < rows) {
        // Lane threadIdx.x reads word threadIdx.x * TILE + threadIdx.y: all in one bank.
        out[out_r * rows + out_c] = tile[threadIdx.x][threadIdx.y];
    }
}
// ANCHOR_END: conflicted

// ANCHOR: kernel
extern "C" __global__ void transpose_conflict_free(const float* in, float* out, int rows, int cols)
{
    // TODO: declare the shared tile so that the TILE elements of any column of it fall in TILE
    // different banks.
    // One unused float at the end of each row: row j starts at word j * (TILE + 1), so the
    // column element tile[j][x] sits in bank (j + x) % 32, a different bank for every j.
    // Rows stay contiguous, so the load phase is as conflict-free as before.
    __shared__ float tile[TILE][TILE + 1];

    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;

    // TODO: the same three steps as transpose_tiled: load the tile, wait, write it transposed.
    // Only the tile's shape changed: the indexing, and so the coalescing, is exercise 16's.
    if (r < rows && c < cols) {
        tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
    }
    int out_r = blockIdx.x * TILE + threadIdx.y;
    int out_c = blockIdx.y * TILE + threadIdx.x;
    if (out_r < cols && out_c < rows) {
        out[out_r * rows + out_c] = tile[threadIdx.x][threadIdx.y];
    }
}
// ANCHOR_END: kernel
