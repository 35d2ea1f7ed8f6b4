// Warp totals by shfl_down, then lane 0 of each warp adds into a shared total (shared atomics).
extern "C" __global__ void reduce_shuffle(const float* in, float* partial, int n)
{
    __shared__ float block_total;
    if (threadIdx.x == 0) block_total = 0.0f;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    if (i < n) v = in[i];
    v += __shfl_down_sync(0xffffffff, v, 16);
    v += __shfl_down_sync(0xffffffff, v, 8);
    v += __shfl_down_sync(0xffffffff, v, 4);
    v += __shfl_down_sync(0xffffffff, v, 2);
    v += __shfl_down_sync(0xffffffff, v, 1);
    if ((threadIdx.x & 31) == 0) atomicAdd(&block_total, v);
    __syncthreads();
    if (threadIdx.x == 0) partial[blockIdx.x] = block_total;
}
