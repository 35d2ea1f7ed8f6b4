// sigmoid(x) = (1 + tanh(x / 2)) / 2, a textbook identity.
__device__ float sigmoid(float x)
{
    float y = 0.0f;
    y = 0.5f * (1.0f + tanhf(0.5f * x));
    return y;
}

extern "C" __global__ void apply_ufunc(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = sigmoid(x[i]);
    }
}
