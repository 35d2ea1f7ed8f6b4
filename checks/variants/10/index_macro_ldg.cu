// An IDX macro for row-major indexing, __ldg loads, unsigned indices.
#define IDX(r, c, ld) ((r) * (ld) + (c))

extern "C" __global__ void matrix_add(const float* a, const float* b, float* c, int rows, int cols)
{
    unsigned int col = blockDim.x * blockIdx.x + threadIdx.x;
    unsigned int row = blockDim.y * blockIdx.y + threadIdx.y;
    if (row < (unsigned int)rows && col < (unsigned int)cols) {
        c[IDX(row, col, cols)] = __ldg(a + IDX(row, col, cols)) + __ldg(b + IDX(row, col, cols));
    }
}
