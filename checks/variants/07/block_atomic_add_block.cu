// atomicAdd_block on a shared counter, then one device-wide atomicAdd per block.
extern "C" __global__ void count_above(const int* values, int* count, int threshold, int n)
{
    __shared__ int block_count;
    if (threadIdx.x == 0) block_count = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (values[i] > threshold) atomicAdd_block(&block_count, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0 && block_count) atomicAdd(count, block_count);
}
