// The stride from blockDim.x, halved by a shift, tid cached in a register.
#define BLOCK_SIZE 256

extern "C" __global__ void reduce_interleaved(const float* in, float* partial, int n)
{
    __shared__ float sums[BLOCK_SIZE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sums[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();

    for (int stride = 1; stride < BLOCK_SIZE; stride *= 2) {
        int index = 2 * stride * threadIdx.x;
        if (index < BLOCK_SIZE) {
            sums[index] += sums[index + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sums[0];
    }
}

extern "C" __global__ void reduce_sequential(const float* in, float* partial, int n)
{
    __shared__ float sdata[BLOCK_SIZE];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x >> 1; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}
