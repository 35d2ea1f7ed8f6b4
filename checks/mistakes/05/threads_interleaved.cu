// Every element once, but neighbouring threads gridDim.x elements apart: the index counts
// blocks fastest, so a warp's loads are spread over gridDim.x times the memory.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = threadIdx.x * gridDim.x + blockIdx.x; i < n; i += stride)
        y[i] = a * x[i] + y[i];
}
