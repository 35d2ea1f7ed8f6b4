// The grid steps over the array a grid's width at a time; inside each width, a block takes its
// own blockDim.x elements, one per thread.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        if (i < n)
            y[i] = a * x[i] + y[i];
    }
}
