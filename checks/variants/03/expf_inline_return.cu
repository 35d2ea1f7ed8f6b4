// Returns the expression directly, never touching y.
__device__ float sigmoid(float x)
{
    return 1.0f / (1.0f + expf(-x));
}

extern "C" __global__ void apply_ufunc(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = sigmoid(x[i]);
    }
}
