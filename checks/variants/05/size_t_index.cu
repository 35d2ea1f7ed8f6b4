// Indices as size_t, as code written for arrays past 2^31 elements does.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += stride)
        y[i] = a * x[i] + y[i];
}
