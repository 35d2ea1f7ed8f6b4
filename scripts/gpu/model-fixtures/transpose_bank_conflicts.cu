// Exercise 18, deliberately slow: the unpadded 32 x 32 tile, so reading a column of it is a
// 32-way bank conflict.
#define TILE 32

extern "C" __global__ void transpose_conflict_free(const float* in, float* out, int rows, int cols)
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
        out[out_r * rows + out_c] = tile[threadIdx.x][threadIdx.y];
    }
}
