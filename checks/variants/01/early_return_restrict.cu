// Early return, a __restrict__ pointer and a const index.
extern "C" __global__ void write_index(int* __restrict__ out, const int n)
{
    const int i = threadIdx.x + blockDim.x * blockIdx.x;
    if (i >= n)
        return;
    out[i] = i;
}
