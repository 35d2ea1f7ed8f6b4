// The reversal done on the store into shared memory, so the read side is straight.
#define BLOCK_SIZE 256

extern "C" __global__ void reverse(const float* in, float* out, int n)
{
    __shared__ float chunk[BLOCK_SIZE];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK_SIZE + t;
    if (i < n) chunk[BLOCK_SIZE - 1 - t] = in[i];
    __syncthreads();
    int j = n - (blockIdx.x + 1) * BLOCK_SIZE + t;
    if (j >= 0) out[j] = chunk[t];
}
