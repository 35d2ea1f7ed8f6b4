// __ldg loads and a butterfly (xor) reduction over the row's warp.
extern "C" __global__ void column_sums(const float* __restrict__ matrix, float* __restrict__ sums,
                                       int rows, int cols)
{
    const int col = threadIdx.x + blockIdx.x * blockDim.x;
    if (col >= cols) return;
    float s = 0.0f;
    int r = 0;
    while (r < rows) {
        s += __ldg(matrix + r * cols + col);
        ++r;
    }
    sums[col] = s;
}

extern "C" __global__ void row_sums(const float* __restrict__ matrix, float* __restrict__ sums,
                                    int rows, int cols)
{
    const unsigned warp_id = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    const unsigned lane = threadIdx.x % warpSize;
    if (warp_id >= (unsigned)rows) return;
    const float* row = matrix + (size_t)warp_id * cols;
    float s = 0.0f;
    for (unsigned c = lane; c < (unsigned)cols; c += warpSize)
        s += __ldg(&row[c]);
    for (int m = 16; m >= 1; m /= 2)
        s += __shfl_xor_sync(0xffffffff, s, m);
    if (lane == 0) sums[warp_id] = s;
}
