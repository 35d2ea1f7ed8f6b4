// float4 loads and stores over the whole quads, then the last n % 4 points one by one.
extern "C" __constant__ int threads_per_block = 256;
extern "C" __constant__ int blocks_per_grid = 1056;

extern "C" __global__ void distances(const float* x, const float* y, float* dist, int n)
{
    int thread = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    for (int q = thread; q < n / 4; q += stride) {
        float4 u = reinterpret_cast<const float4*>(x)[q];
        float4 v = reinterpret_cast<const float4*>(y)[q];
        reinterpret_cast<float4*>(dist)[q] =
            make_float4(sqrtf(u.x * u.x + v.x * v.x), sqrtf(u.y * u.y + v.y * v.y),
                        sqrtf(u.z * u.z + v.z * v.z), sqrtf(u.w * u.w + v.w * v.w));
    }
    int i = n / 4 * 4 + thread;
    if (i < n)
        dist[i] = sqrtf(x[i] * x[i] + y[i] * y[i]);
}
