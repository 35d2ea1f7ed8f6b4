// The numerically stable form: e^x / (1 + e^x) for negative x, so exp never overflows.
__device__ float sigmoid(float x)
{
    float y = 0.0f;
    if (x >= 0.0f) {
        y = 1.0f / (1.0f + expf(-x));
    } else {
        const float e = expf(x);
        y = e / (1.0f + e);
    }
    return y;
}

extern "C" __global__ void apply_ufunc(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = sigmoid(x[i]);
    }
}
