// MISTAKE: the fix makes the threads of the last column return: no read past the end, and the last pixel of each row is never written
// Exercise 22: find the bug (an out-of-bounds access).
//
// blur_rows smooths an image along its rows: each output pixel is the average of the pixel and
// its left and right neighbours. At the left and right edges of the image, where a neighbour
// would be missing, the edge pixel stands in for it:
//
//     out[y][x] = (in[y][max(x - 1, 0)] + in[y][x] + in[y][min(x + 1, width - 1)]) / 3
//
// The image is `height` rows of `width` floats, row-major. Blocks of 16 x 16 threads, one thread
// per pixel, grid (ceil(width / 16), ceil(height / 16)).
//
// The kernel has a bug. Run `runner check 22` and read the report: in the simulator it names
// the kind of access, the source line, the block and the thread where it first went wrong;
// on a GPU, look at which pixels come out wrong. Work out what that thread did, then fix the
// kernel by adding what is missing. The launch stays as it is.
//
// Check it with: runner check 22

// ANCHOR: kernel
extern "C" __global__ void blur_rows(const float* in, float* out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width - 1 || y >= height) {
        return;
    }

    // TODO: this kernel has a bug. Find it and fix it.
    int left = x - 1;
    if (left < 0) {
        left = 0;
    }
    int right = x + 1;
    // The right neighbour needs the same care as the left one. Without it the last pixel of
    // each row reads the first pixel of the next row, and the image's very last pixel reads
    // past the end of `in`: the access the simulator stopped at.

    const float* row = in + y * width;
    out[y * width + x] = (row[left] + row[x] + row[right]) / 3.0f;
}
// ANCHOR_END: kernel
