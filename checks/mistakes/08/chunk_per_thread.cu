// Each thread counts its own contiguous chunk of the data: right counts, but neighbouring
// threads read bytes a chunk apart, so every load touches its own sector.
extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int n)
{
    __shared__ unsigned int block_bins[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        block_bins[b] = 0;
    }
    __syncthreads();
    int threads = gridDim.x * blockDim.x;
    int chunk = (n + threads - 1) / threads;
    int start = (blockIdx.x * blockDim.x + threadIdx.x) * chunk;
    int end = min(start + chunk, n);
    for (int i = start; i < end; ++i) {
        atomicAdd(&block_bins[data[i]], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        if (block_bins[b] != 0) {
            atomicAdd(&bins[b], block_bins[b]);
        }
    }
}
