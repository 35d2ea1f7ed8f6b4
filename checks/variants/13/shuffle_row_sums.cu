// Columns walked with a pointer; each row's 32 lanes combined with warp shuffles, lane 0 stores.
extern "C" __global__ void column_sums(const float* matrix, float* sums, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < cols) {
        const float* p = matrix + col;
        float sum = 0.0f;
        for (int r = 0; r < rows; r++, p += cols)
            sum += *p;
        sums[col] = sum;
    }
}

extern "C" __global__ void row_sums(const float* matrix, float* sums, int rows, int cols)
{
    int global = blockIdx.x * blockDim.x + threadIdx.x;
    int row = global >> 5;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;   // a warp's 32 lanes share one row, so the whole warp leaves
    float partial = 0.0f;
    for (int c = lane; c < cols; c += 32)
        partial += matrix[(size_t)row * cols + c];
    for (int offset = 16; offset > 0; offset >>= 1)
        partial += __shfl_down_sync(0xffffffffu, partial, offset);
    if (lane == 0)
        sums[row] = partial;
}
