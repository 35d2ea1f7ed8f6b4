// Computed in double and rounded once, as a careful student might.
__device__ float sigmoid(float x)
{
    double d = 1.0 / (1.0 + exp(-(double)x));
    return (float)d;
}

extern "C" __global__ void apply_ufunc(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = sigmoid(x[i]);
    }
}
