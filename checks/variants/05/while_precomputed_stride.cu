// A while loop with the stride computed once.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    int stride = gridDim.x * blockDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        y[i] = a * x[i] + y[i];
        i += stride;
    }
}
