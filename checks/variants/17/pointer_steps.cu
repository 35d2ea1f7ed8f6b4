// Global pointers that step a tile at a time through a's row band and b's column band.
#define TILE 16

extern "C" __global__ void matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float sa[TILE * TILE];
    __shared__ float sb[TILE * TILE];
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (int base = 0; base < k; base += TILE) {
        sa[threadIdx.y * TILE + threadIdx.x] =
            (r < m && base + threadIdx.x < k) ? a[r * k + base + threadIdx.x] : 0.0f;
        sb[threadIdx.y * TILE + threadIdx.x] =
            (q < n && base + threadIdx.y < k) ? b[(base + threadIdx.y) * n + q] : 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; i++)
            sum = fmaf(sa[threadIdx.y * TILE + i], sb[i * TILE + threadIdx.x], sum);
        __syncthreads();
    }
    if (r < m && q < n) c[r * n + q] = sum;
}
