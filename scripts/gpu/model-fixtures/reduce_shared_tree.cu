// Exercise 20, deliberately slower: a shared-memory tree with a barrier per step instead of warp
// shuffles.
#define BLOCK_SIZE 256

extern "C" __global__ void reduce_shuffle(const float* in, float* partial, int n)
{
    __shared__ float sums[BLOCK_SIZE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sums[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int stride = BLOCK_SIZE / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            sums[threadIdx.x] += sums[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sums[0];
    }
}
