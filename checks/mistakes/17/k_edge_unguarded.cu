// The loads of a tile check row and col but not the k edge: the last tile reads past k.
#define TILE 16

extern "C" __global__ void matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int step = 0; step < k; step += TILE) {
        a_tile[threadIdx.y][threadIdx.x] = row < m ? a[row * k + step + threadIdx.x] : 0.0f;
        b_tile[threadIdx.y][threadIdx.x] = col < n ? b[(step + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; ++i) {
            sum += a_tile[threadIdx.y][i] * b_tile[i][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        c[row * n + col] = sum;
    }
}
