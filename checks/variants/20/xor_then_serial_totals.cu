// Every warp's total from shfl_xor, the warp totals summed by thread 0 in a loop.
#define WARPS 8

__device__ __forceinline__ float butterfly(float v)
{
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m, 32);
    return v;
}

extern "C" __global__ void reduce_shuffle(const float* __restrict__ in, float* __restrict__ partial,
                                          int n)
{
    __shared__ float totals[WARPS];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float v = butterfly(i < n ? __ldg(in + i) : 0.0f);
    if (threadIdx.x % 32 == 0) totals[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (int w = 0; w < WARPS; ++w) sum += totals[w];
        partial[blockIdx.x] = sum;
    }
}
