// A do-while behind a guard, the step and the test in one expression.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    int stride = blockDim.x * gridDim.x;
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) {
        do {
            y[i] = a * x[i] + y[i];
        } while ((i += stride) < n);
    }
}
