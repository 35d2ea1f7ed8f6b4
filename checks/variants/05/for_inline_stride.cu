// The grid-stride loop as NVIDIA's blog writes it: the stride computed in the loop's step.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
