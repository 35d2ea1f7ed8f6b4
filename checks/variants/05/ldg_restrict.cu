// Read-only loads through __ldg, and pointers that do not alias.
extern "C" __global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a, int n)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = a * __ldg(&x[i]) + y[i];
}
