// Pointers walking a's row and b's column, fmaf for the product.
extern "C" __global__ void matmul(const float* a, const float* b, float* c, int m, int n, int k)
{
    int row = blockDim.y * blockIdx.y + threadIdx.y;
    int col = blockDim.x * blockIdx.x + threadIdx.x;
    if (row < m && col < n) {
        const float* pa = a + row * k;
        const float* pb = b + col;
        float acc = 0.f;
        for (int i = 0; i < k; i++) {
            acc = fmaf(*pa, *pb, acc);
            pa += 1;
            pb += n;
        }
        c[row * n + col] = acc;
    }
}
