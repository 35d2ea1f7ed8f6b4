// Grid-stride loops over both dimensions around a device function.
__device__ int escape_time(double cx, double cy, int max_iterations)
{
    int steps = 0;
    double zx = 0.0, zy = 0.0;
    while (steps < max_iterations && zx * zx + zy * zy <= 4.0) {
        double next_zx = zx * zx - zy * zy + cx;
        zy = 2.0 * zx * zy + cy;
        zx = next_zx;
        ++steps;
    }
    return steps;
}

extern "C" __global__ void mandelbrot(int* iterations, int width, int height, double x_min,
                                      double y_min, double pixel_size, int max_iterations)
{
    for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < height;
         row += blockDim.y * gridDim.y) {
        for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < width;
             col += blockDim.x * gridDim.x) {
            iterations[row * width + col] = escape_time(x_min + (col + 0.5) * pixel_size,
                                                        y_min + (row + 0.5) * pixel_size,
                                                        max_iterations);
        }
    }
}
