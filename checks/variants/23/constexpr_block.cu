// The block size as a constexpr, padding lanes past n loaded with 0, an early return guard.
constexpr int kBlock = 256;

extern "C" __global__ void reverse(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float chunk[kBlock];
    unsigned int t = threadIdx.x;
    int i = blockIdx.x * kBlock + t;
    chunk[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    int j = n - (int)(blockIdx.x + 1) * kBlock + (int)t;
    if (j < 0) return;
    out[j] = chunk[kBlock - 1 - t];
}
