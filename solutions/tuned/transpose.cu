// Tuned reference for exercises 16 and 18, for `runner bench`: the padded tile of exercise 18,
// made 64 x 64, moved by blocks of 64 x 8 threads that each carry 8 rows of it. Each thread has
// 8 loads in flight instead of 1, and a block moves 16 KiB per barrier instead of 4. Tiles of
// 32 x 32 with 32 x 8 threads reach 86% of the copy ceiling on an H200, these 91%
// (scripts/gpu/results/variants.md).

#define TILE 64
#define ROWS 8 // threads per block in y; each carries TILE / ROWS rows

extern "C" __constant__ int tuned_block_x = TILE;
extern "C" __constant__ int tuned_block_y = ROWS;
extern "C" __constant__ int tuned_items_y = TILE / ROWS;

__device__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
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

// The entry points of exercises 16 and 18.
extern "C" __global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    transpose(in, out, rows, cols);
}

extern "C" __global__ void transpose_conflict_free(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    transpose(in, out, rows, cols);
}
