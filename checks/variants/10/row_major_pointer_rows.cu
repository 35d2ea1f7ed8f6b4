// Row pointers first, then the column; x and y named after the matrix, not the grid.
extern "C" __global__ void matrix_add(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int rows, int cols)
{
    const int x = threadIdx.x + blockIdx.x * blockDim.x;
    const int y = threadIdx.y + blockIdx.y * blockDim.y;
    if (x >= cols) return;
    if (y >= rows) return;
    const float* a_row = a + (size_t)y * cols;
    const float* b_row = b + (size_t)y * cols;
    float* c_row = c + (size_t)y * cols;
    c_row[x] = a_row[x] + b_row[x];
}
