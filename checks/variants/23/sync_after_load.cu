// The barrier added, with the block size taken from blockDim and the reversed index spelled out.
#define BLOCK_SIZE 256

extern "C" __global__ void reverse(const float* in, float* out, int n)
{
    __shared__ float chunk[BLOCK_SIZE];
    const int t = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + t;
    if (i < n) chunk[t] = in[i];
    __syncthreads();
    // The element this thread writes is the one loaded by thread blockDim.x - 1 - t.
    const int src = blockIdx.x * blockDim.x + (blockDim.x - 1 - t);
    if (src < n) out[n - 1 - src] = chunk[blockDim.x - 1 - t];
}
