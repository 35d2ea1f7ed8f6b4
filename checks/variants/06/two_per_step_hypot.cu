// Two points per step, a grid apart, with hypotf.
extern "C" __constant__ int threads_per_block = 256;
extern "C" __constant__ int blocks_per_grid = 528;

extern "C" __global__ void distances(const float* x, const float* y, float* dist, int n)
{
    int stride = gridDim.x * blockDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + stride < n; i += 2 * stride) {
        float x0 = x[i], x1 = x[i + stride], y0 = y[i], y1 = y[i + stride];
        dist[i] = hypotf(x0, y0);
        dist[i + stride] = hypotf(x1, y1);
    }
    if (i < n)
        dist[i] = hypotf(x[i], y[i]);
}
