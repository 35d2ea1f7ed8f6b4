// A do-while with fma, checking the escape after the step, counted so it matches the reference.
__device__ int escape_time(double cx, double cy, int max_iterations)
{
    double zx = 0.0, zy = 0.0;
    int steps = 0;
    if (max_iterations <= 0) return 0;
    do {
        if (zx * zx + zy * zy > 4.0) break;
        double nx = zx * zx - zy * zy + cx;
        zy = fma(2.0 * zx, zy, cy);
        zx = nx;
    } while (++steps < max_iterations);
    return steps;
}

extern "C" __global__ void mandelbrot(int* iterations, int width, int height, double x_min,
                                      double y_min, double pixel_size, int max_iterations)
{
    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < (unsigned)width && row < (unsigned)height) {
        double cx = x_min + ((double)col + 0.5) * pixel_size;
        double cy = y_min + ((double)row + 0.5) * pixel_size;
        iterations[(size_t)row * width + col] = escape_time(cx, cy, max_iterations);
    }
}
