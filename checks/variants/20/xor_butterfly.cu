// A butterfly (xor) reduction: every lane ends with the warp's total.
#define BLOCK_SIZE 256

extern "C" __global__ void reduce_shuffle(const float* in, float* partial, int n)
{
    __shared__ float totals[32];
    unsigned lane = threadIdx.x & 31u;
    unsigned warp = threadIdx.x >> 5;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    for (int mask = 16; mask > 0; mask >>= 1)
        v += __shfl_xor_sync(0xffffffff, v, mask);
    if (lane == 0) totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < blockDim.x / 32) ? totals[lane] : 0.0f;
        for (int mask = 16; mask > 0; mask >>= 1)
            v += __shfl_xor_sync(0xffffffff, v, mask);
        if (lane == 0) partial[blockIdx.x] = v;
    }
}
