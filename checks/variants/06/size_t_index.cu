// size_t indices.
extern "C" __constant__ int threads_per_block = 256;
extern "C" __constant__ int blocks_per_grid = 1056;

extern "C" __global__ void distances(const float* x, const float* y, float* dist, int n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += stride)
        dist[i] = sqrtf(x[i] * x[i] + y[i] * y[i]);
}
