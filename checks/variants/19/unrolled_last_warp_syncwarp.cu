// The tree down to 32 with barriers, then the last warp with __syncwarp between steps.
#define BLOCK_SIZE 256

extern "C" __global__ void reduce_sequential(const float* in, float* partial, int n)
{
    __shared__ float s[BLOCK_SIZE];
    const unsigned int tid = threadIdx.x;
    const unsigned int i = blockIdx.x * blockDim.x + tid;
    s[tid] = i < (unsigned)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {
        float v = s[tid] + s[tid + 32];
        __syncwarp();
        s[tid] = v;
        __syncwarp();
        for (int stride = 16; stride > 0; stride >>= 1) {
            if (tid < stride) v += s[tid + stride];
            __syncwarp();
            if (tid < stride) s[tid] = v;
            __syncwarp();
        }
        if (tid == 0) partial[blockIdx.x] = v;
    }
}
