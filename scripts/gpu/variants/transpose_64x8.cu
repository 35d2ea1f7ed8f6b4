// A variant of the tuned transpose (solutions/tuned/18_...), timed with
// `runner bench 18 --file` to choose its shape: tile 64 x 64, blocks of 64 x 8 threads.
#define TILE 64
#define ROWS 8

extern "C" __constant__ int tuned_block_x = TILE;
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
