// 64-bit signed indices.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    long long stride = (long long)blockDim.x * gridDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = a * x[i] + y[i];
}
