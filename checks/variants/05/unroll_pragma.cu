// The loop unrolled by the compiler, four steps at a time.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    int stride = gridDim.x * blockDim.x;
#pragma unroll 4
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = a * x[i] + y[i];
}
