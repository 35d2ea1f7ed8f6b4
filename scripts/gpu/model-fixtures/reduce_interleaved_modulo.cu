// Exercise 19, deliberately slow: interleaved addressing chosen with `%`, so the active threads
// are scattered over every warp (divergence) and the modulo costs an integer division.
#define BLOCK_SIZE 256

extern "C" __global__ void reduce_sequential(const float* in, float* partial, int n)
{
    __shared__ float sums[BLOCK_SIZE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sums[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = 1; stride < blockDim.x; stride *= 2) {
        if (threadIdx.x % (2 * stride) == 0) {
            sums[threadIdx.x] += sums[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sums[0];
    }
}
