// A loop over the three taps, each clamped into the row.
extern "C" __global__ void blur_rows(const float* in, float* out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width) return;
    if (y >= height) return;
    float sum = 0.0f;
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx) {
        int xx = x + dx;
        if (xx < 0) xx = 0;
        if (xx >= width) xx = width - 1;
        sum += in[y * width + xx];
    }
    out[y * width + x] = sum / 3.0f;
}
