// Unsigned indices, as blockIdx.x and blockDim.x are.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned)n; i += stride)
        y[i] = a * x[i] + y[i];
}
