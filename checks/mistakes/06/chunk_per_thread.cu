// Each thread its own contiguous chunk of points, on the solution's grid: uncoalesced.
extern "C" __constant__ int threads_per_block = 256;
extern "C" __constant__ int blocks_per_grid = 1056;

extern "C" __global__ void distances(const float* x, const float* y, float* dist, int n)
{
    int thread = blockIdx.x * blockDim.x + threadIdx.x;
    int threads = gridDim.x * blockDim.x;
    int per_thread = (n + threads - 1) / threads;
    int end = min((thread + 1) * per_thread, n);
    for (int i = thread * per_thread; i < end; ++i)
        dist[i] = sqrtf(x[i] * x[i] + y[i] * y[i]);
}
