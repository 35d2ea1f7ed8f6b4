// The loop as a while, the stride in its step.
extern "C" __constant__ int threads_per_block = 256;
extern "C" __constant__ int blocks_per_grid = 1056;

extern "C" __global__ void distances(const float* x, const float* y, float* dist, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        dist[i] = sqrtf(x[i] * x[i] + y[i] * y[i]);
        i += blockDim.x * gridDim.x;
    }
}
