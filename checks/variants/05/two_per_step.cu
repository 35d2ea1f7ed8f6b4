// Two elements per step, a grid apart: both loads issued before either store.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    int stride = gridDim.x * blockDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + stride < n; i += 2 * stride) {
        float u = x[i], v = x[i + stride];
        float p = y[i], q = y[i + stride];
        y[i] = a * u + p;
        y[i + stride] = a * v + q;
    }
    if (i < n)
        y[i] = a * x[i] + y[i];
}
