// Everything inline, a for loop with break, the squares kept between steps.
extern "C" __global__ void mandelbrot(int* iterations, int width, int height, double x_min,
                                      double y_min, double pixel_size, int max_iterations)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < width && row < height) {
        const double cx = x_min + (col + 0.5) * pixel_size;
        const double cy = y_min + (row + 0.5) * pixel_size;
        double zx = 0.0, zy = 0.0;
        int k;
        for (k = 0; k < max_iterations; ++k) {
            if (zx * zx + zy * zy > 4.0) break;
            const double t = zx * zx - zy * zy + cx;
            zy = 2.0 * zx * zy + cy;
            zx = t;
        }
        iterations[row * width + col] = k;
    }
}
