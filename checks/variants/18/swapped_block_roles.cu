// Padding of one, indices named x/y, the output block's coordinates computed up front.
#define TILE_DIM 32

extern "C" __global__ void transpose_conflict_free(const float* __restrict__ in,
                                                   float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    const int bx = blockIdx.x * TILE_DIM, by = blockIdx.y * TILE_DIM;
    const int tx = threadIdx.x, ty = threadIdx.y;
    if (by + ty < rows && bx + tx < cols) tile[ty][tx] = __ldg(&in[(by + ty) * cols + bx + tx]);
    __syncthreads();
    // Transposed: the block at (bx, by) of in writes the block at (by, bx) of out.
    const int x = by + tx, y = bx + ty;
    if (y < cols && x < rows) out[y * rows + x] = tile[tx][ty];
}
