// The same loop as a while.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    while (i < n) {
        y[i] = a * x[i] + y[i];
        i += blockDim.x * gridDim.x;
    }
}
