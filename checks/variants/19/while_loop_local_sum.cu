// A while loop, and each thread keeps its running sum in a register.
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
    __shared__ float buf[BLOCK_SIZE];
    int t = threadIdx.x;
    int g = blockIdx.x * BLOCK_SIZE + t;
    float mine = 0.0f;
    if (g < n) mine = in[g];
    buf[t] = mine;
    __syncthreads();
    int half = BLOCK_SIZE / 2;
    while (half >= 1) {
        if (t < half) {
            mine += buf[t + half];
            buf[t] = mine;
        }
        __syncthreads();
        half /= 2;
    }
    if (t == 0) partial[blockIdx.x] = mine;
}
