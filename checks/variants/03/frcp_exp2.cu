// exp2f of a scaled argument and __frcp_rn, a spelling from performance guides.
__device__ float sigmoid(float x)
{
    const float log2e = 1.4426950408889634f;
    return __frcp_rn(1.0f + exp2f(-x * log2e));
}

extern "C" __global__ void apply_ufunc(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = sigmoid(x[i]);
    }
}
