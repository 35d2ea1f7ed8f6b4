// Exercise 13, deliberately slow: one thread per row, so the 32 threads of a warp read 32 rows
// `cols` floats apart at each step (32 sectors per request) instead of sharing one row.
extern "C" __global__ void column_sums(const float* matrix, float* sums, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols) return;
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r) {
        sum += matrix[r * cols + col];
    }
    sums[col] = sum;
}

extern "C" __global__ void row_sums(const float* matrix, float* sums, int rows, int cols)
{
    int thread = blockIdx.x * blockDim.x + threadIdx.x;
    int row = thread / 32;
    int lane = thread % 32;
    if (row >= rows || lane != 0) return;
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) {
        sum += matrix[row * cols + c];
    }
    sums[row] += sum;
}
