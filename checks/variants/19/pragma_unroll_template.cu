// The block size as a template parameter, the loop unrolled.
template <unsigned int Block> __device__ float block_sum(float* s, unsigned int tid)
{
#pragma unroll
    for (unsigned int stride = Block / 2; stride > 0; stride /= 2) {
        if (tid < stride) s[tid] = s[tid] + s[tid + stride];
        __syncthreads();
    }
    return s[0];
}

extern "C" __global__ void reduce_sequential(const float* in, float* partial, int n)
{
    __shared__ float sums[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sums[threadIdx.x] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    float total = block_sum<256>(sums, threadIdx.x);
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}
