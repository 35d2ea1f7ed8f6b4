// float4 loads and stores over the whole quads (cudaMalloc aligns the arrays to 256 bytes),
// then the last n % 4 elements one by one.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    int thread = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (int q = thread; q < n / 4; q += stride) {
        float4 u = x4[q], v = y4[q];
        y4[q] = make_float4(a * u.x + v.x, a * u.y + v.y, a * u.z + v.z, a * u.w + v.w);
    }
    int i = n / 4 * 4 + thread;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
