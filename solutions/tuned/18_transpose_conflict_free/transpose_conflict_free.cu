// Tuned reference for exercise 18, for `runner bench`: the padded tile of exercise 18, moved by
// blocks of 32 x 8 threads that each carry 4 rows of the tile. A quarter of the threads do the
// same work, each with 4 loads in flight instead of 1, and blocks of 256 threads let more blocks
// share an SM than blocks of 1024 do.

#define TILE 32
#define ROWS 8 // threads per block in y; each covers TILE / ROWS rows

extern "C" __constant__ int tuned_block_y = ROWS;
extern "C" __constant__ int tuned_items_y = TILE / ROWS;

extern "C" __global__ void transpose_conflict_free(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];

    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS) {
        if (r + j < rows && c < cols) {
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(r + j) * cols + c];
        }
    }

    __syncthreads();

    int out_r = blockIdx.x * TILE + threadIdx.y;
    int out_c = blockIdx.y * TILE + threadIdx.x;
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS) {
        if (out_r + j < cols && out_c < rows) {
            out[(size_t)(out_r + j) * rows + out_c] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}
