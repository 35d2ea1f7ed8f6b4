// The padded tile as a flat array with a row pitch of TILE + 1.
#define TILE 32
#define PITCH (TILE + 1)

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
    __shared__ float tile[TILE * PITCH];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (y < rows && x < cols)
        tile[threadIdx.y * PITCH + threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (y < cols && x < rows)
        out[y * rows + x] = tile[threadIdx.x * PITCH + threadIdx.y];
}
