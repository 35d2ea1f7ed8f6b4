// The whole window (block plus both halos) loaded by a block-strided loop, zero past the ends.
#define BLOCK_SIZE 256
#define RADIUS 3

extern "C" __global__ void stencil_1d(const float* in, float* out, int n)
{
    __shared__ float window[BLOCK_SIZE + 2 * RADIUS];
    const int base = blockIdx.x * blockDim.x - RADIUS;
    for (int j = threadIdx.x; j < BLOCK_SIZE + 2 * RADIUS; j += blockDim.x) {
        int g = base + j;
        window[j] = (g >= 0 && g < n) ? in[g] : 0.0f;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k <= 2 * RADIUS; k++)
        s += window[threadIdx.x + k];
    out[i] = s;
}
