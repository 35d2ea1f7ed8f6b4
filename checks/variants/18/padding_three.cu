// An odd padding other than one (TILE + 3) still gives every column its own banks.
#define TILE 32
#define PAD 3

extern "C" __global__ void transpose_conflict_free(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE * (TILE + PAD)];
    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;
    if (r < rows && c < cols) tile[threadIdx.y * (TILE + PAD) + threadIdx.x] = in[r * cols + c];
    __syncthreads();
    int out_r = blockIdx.x * TILE + threadIdx.y;
    int out_c = blockIdx.y * TILE + threadIdx.x;
    if (out_r < cols && out_c < rows)
        out[out_r * rows + out_c] = tile[threadIdx.x * (TILE + PAD) + threadIdx.y];
}
