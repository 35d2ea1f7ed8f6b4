// A private histogram per warp in shared memory (fewer collisions), summed per bin at the end.
#define BINS 256
#define WARPS_MAX 32

extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int n)
{
    __shared__ unsigned int warp_bins[WARPS_MAX / 4][BINS];
    const int warps = (blockDim.x + 31) / 32;
    const int groups = warps < WARPS_MAX / 4 ? warps : WARPS_MAX / 4;
    for (int k = threadIdx.x; k < groups * BINS; k += blockDim.x) warp_bins[k / BINS][k % BINS] = 0;
    __syncthreads();
    const int mine = (threadIdx.x / 32) % groups;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&warp_bins[mine][data[i]], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned int total = 0;
        for (int w = 0; w < groups; ++w) total += warp_bins[w][b];
        if (total) atomicAdd(bins + b, total);
    }
}
