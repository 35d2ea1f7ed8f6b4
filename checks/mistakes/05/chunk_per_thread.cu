// Each thread walks its own contiguous chunk, one element after another: right values, but the
// 32 lanes of a warp touch 32 chunks far apart on every step.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    int thread = blockIdx.x * blockDim.x + threadIdx.x;
    int threads = gridDim.x * blockDim.x;
    int per_thread = (n + threads - 1) / threads;
    int start = thread * per_thread;
    int end = min(start + per_thread, n);
    for (int i = start; i < end; ++i)
        y[i] = a * x[i] + y[i];
}
