// A loop over the number of tiles, padded tiles and an unrolled inner product.
#define TILE 16

extern "C" __global__ void matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float As[TILE][TILE + 1];
    __shared__ float Bs[TILE][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    int tiles = (k + TILE - 1) / TILE;
    for (int t = 0; t < tiles; ++t) {
        int ac = t * TILE + tx;
        int br = t * TILE + ty;
        As[ty][tx] = (row < m && ac < k) ? a[row * k + ac] : 0.0f;
        Bs[ty][tx] = (br < k && col < n) ? b[br * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int e = 0; e < TILE; ++e)
            acc += As[ty][e] * Bs[e][tx];
        __syncthreads();
    }
    if (row < m && col < n)
        c[row * n + col] = acc;
}
