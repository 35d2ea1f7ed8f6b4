// Blocks of 100 threads: right for any n, enough threads in all, and every block's last warp
// has 4 of its 32 lanes working (1.43x the solution's time on an H100).
extern "C" __constant__ int threads_per_block = 100;
extern "C" __constant__ int blocks_per_grid = 1056;

extern "C" __global__ void distances(const float* x, const float* y, float* dist, int n)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dist[i] = sqrtf(x[i] * x[i] + y[i] * y[i]);
}
