// A small complex-number struct with operators, as C++ students write it.
struct Complex {
    double re, im;
    __device__ Complex operator*(const Complex& o) const
    {
        return {re * o.re - im * o.im, re * o.im + im * o.re};
    }
    __device__ Complex operator+(const Complex& o) const { return {re + o.re, im + o.im}; }
    __device__ double norm2() const { return re * re + im * im; }
};

__device__ int escape_time(Complex c, int max_iterations)
{
    Complex z{0.0, 0.0};
    int n = 0;
    while (n < max_iterations && z.norm2() <= 4.0) {
        z = z * z + c;
        n++;
    }
    return n;
}

extern "C" __global__ void mandelbrot(int* iterations, int width, int height, double x_min,
                                      double y_min, double pixel_size, int max_iterations)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= width || row >= height) return;
    Complex c{x_min + (col + 0.5) * pixel_size, y_min + (row + 0.5) * pixel_size};
    iterations[row * width + col] = escape_time(c, max_iterations);
}
