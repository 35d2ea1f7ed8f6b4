// Each block its own contiguous chunk of the array, its threads striding by blockDim.x inside
// it: still neighbouring threads on neighbouring elements.
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n)
{
    int per_block = (n + gridDim.x - 1) / gridDim.x;
    int start = blockIdx.x * per_block;
    int end = min(start + per_block, n);
    for (int i = start + threadIdx.x; i < end; i += blockDim.x)
        y[i] = a * x[i] + y[i];
}
