// A right kernel on one block: 131 of an H100's 132 SMs stay idle.
extern "C" __constant__ int threads_per_block = 256;
extern "C" __constant__ int blocks_per_grid = 1;

extern "C" __global__ void distances(const float* x, const float* y, float* dist, int n)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dist[i] = sqrtf(x[i] * x[i] + y[i] * y[i]);
}
