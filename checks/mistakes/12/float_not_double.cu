// The escape loop in float: near the set's edge the step counts differ from double's.
// Exercise 12: the Mandelbrot set, an image computed by a 2D grid with a device function.
//
// For a point c of the complex plane, iterate z = z * z + c from z = 0. Points whose z stays
// small forever are in the Mandelbrot set; for the others, the number of steps before |z|
// exceeds 2 says how far outside they are, and colouring pixels by it draws the familiar
// picture. Precisely, for c = (cx, cy):
//
//     zx = 0, zy = 0, steps = 0
//     while steps < max_iterations and zx * zx + zy * zy <= 4:
//         (zx, zy) = (zx * zx - zy * zy + cx, 2 * zx * zy + cy)     (both from the old values)
//         steps = steps + 1
//     the answer is steps (max_iterations for points that never escaped)
//
// The image is `width` pixels wide and `height` pixels high, stored row by row: pixel (row, col)
// is iterations[row * width + col]. Its point c is the centre of the pixel's square, of side
// pixel_size, counted from the image's corner (x_min, y_min):
//
//     cx = x_min + (col + 0.5) * pixel_size,   cy = y_min + (row + 0.5) * pixel_size
//
// The runner launches a 2D grid of 32 x 8 blocks covering the image: x over the columns, y over
// the rows, rounded up to whole blocks.
//
// The arithmetic is in double precision on purpose: near the edge of the set, a rounding
// difference in the last bit of a float can change the step count of a pixel, and the CPU
// reference would then disagree with a correct kernel. In double, that does not happen at
// these sizes. (Consumer GPUs run double precision many times slower than float; data-centre
// GPUs such as the H100 only about half as fast.)
//
// Check it with: runner check 12

// ANCHOR: escape_time
// The number of steps before z escapes, as above; a __device__ function, called from the kernel.
__device__ int escape_time(float cx, float cy, int max_iterations)
{
    int steps = 0;
    // TODO: iterate z = z * z + c as described above, counting the steps in `steps`.
    float zx = 0.0f, zy = 0.0f;
    while (steps < max_iterations && zx * zx + zy * zy <= 4.0) {
        // The new zy needs the old zx, so the new zx waits in a temporary.
        float next_zx = zx * zx - zy * zy + cx;
        zy = 2.0 * zx * zy + cy;
        zx = next_zx;
        ++steps;
    }
    return steps;
}
// ANCHOR_END: escape_time

// ANCHOR: kernel
extern "C" __global__ void mandelbrot(int* iterations, int width, int height, double x_min,
                                      double y_min, double pixel_size, int max_iterations)
{
    // TODO: compute this thread's pixel (col from x, row from y); return if it is outside the
    // image.
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= width || row >= height) return;

    // TODO: compute the pixel's point c, and store escape_time(cx, cy, max_iterations) as the
    // pixel's value.
    // Pixels differ in how many steps they take, so the threads of a warp finish their loops
    // at different times; a warp is done when its slowest pixel is, which is why neighbouring
    // pixels (similar step counts) share a warp.
    double cx = x_min + (col + 0.5) * pixel_size;
    double cy = y_min + (row + 0.5) * pixel_size;
    iterations[row * width + col] = escape_time(cx, cy, max_iterations);
}
// ANCHOR_END: kernel
