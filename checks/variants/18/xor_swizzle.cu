// No padding: the column is swizzled with the row (x ^ y), so a column read hits 32 banks.
#define TILE 32

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

extern "C" __global__ void transpose_conflict_free(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * TILE + tx;
    int r = blockIdx.y * TILE + ty;
    if (r < rows && c < cols)
        tile[ty][tx ^ ty] = in[r * cols + c];
    __syncthreads();
    int out_r = blockIdx.x * TILE + ty;
    int out_c = blockIdx.y * TILE + tx;
    if (out_r < cols && out_c < rows)
        out[out_r * rows + out_c] = tile[tx][ty ^ tx];
}
