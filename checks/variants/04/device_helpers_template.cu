// Each step a __device__ helper (one a template), composed in the kernel.
template <typename T> __device__ __forceinline__ T affine(T v, T a, T b) { return a * v + b; }

__device__ float relu_of(float v) { return v > 0.0f ? v : 0.0f; }

__device__ float squared(float v) { return v * v; }

extern "C" __global__ void fused(const float* x, float* y, float a, float b, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = squared(relu_of(affine(x[i], a, b)));
}
