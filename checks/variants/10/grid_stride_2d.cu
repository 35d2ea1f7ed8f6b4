// A 2D grid-stride loop in both dimensions, where one thread per element would do.
extern "C" __global__ void matrix_add(const float* a, const float* b, float* c, int rows, int cols)
{
    for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < rows;
         row += blockDim.y * gridDim.y) {
        for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < cols;
             col += blockDim.x * gridDim.x) {
            c[row * cols + col] = a[row * cols + col] + b[row * cols + col];
        }
    }
}
