// The thread's own element goes to tile[threadIdx.x], where the left halo lives, not tile[t].
#define BLOCK_SIZE 256
#define RADIUS 3

extern "C" __global__ void stencil_1d(const float* in, float* out, int n)
{
    __shared__ float tile[BLOCK_SIZE + 2 * RADIUS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x + RADIUS;
    tile[threadIdx.x] = i < n ? in[i] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int left = i - RADIUS;
        int right = i + BLOCK_SIZE;
        tile[threadIdx.x] = left >= 0 ? in[left] : 0.0f;
        tile[t + BLOCK_SIZE] = right < n ? in[right] : 0.0f;
    }
    __syncthreads();
    if (i < n) {
        float sum = 0.0f;
        for (int offset = -RADIUS; offset <= RADIUS; ++offset) {
            sum += tile[t + offset];
        }
        out[i] = sum;
    }
}
