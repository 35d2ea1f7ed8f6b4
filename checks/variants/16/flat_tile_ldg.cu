// A flat shared array indexed by hand, read-only loads, block origins computed once.
#define TILE 32

extern "C" __global__ void transpose_naive(const float* in, float* out, int rows, int cols)
{
    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;
    if (r < rows && c < cols) {
        out[c * rows + r] = in[r * cols + c];
    }
}

extern "C" __global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out,
                                           int rows, int cols)
{
    __shared__ float tile[TILE * TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    if (row0 + ty < rows && col0 + tx < cols)
        tile[ty * TILE + tx] = __ldg(&in[(row0 + ty) * cols + col0 + tx]);
    __syncthreads();
    if (col0 + ty < cols && row0 + tx < rows)
        out[(col0 + ty) * rows + row0 + tx] = tile[tx * TILE + ty];
}
