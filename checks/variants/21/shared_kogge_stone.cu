// No shuffles: a Kogge-Stone scan in shared memory, read then barrier then write at each step.
#define BLOCK_SIZE 256

extern "C" __global__ void scan_blocks(const int* in, int* out, int n)
{
    __shared__ int s[BLOCK_SIZE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < BLOCK_SIZE; offset <<= 1) {
        int add = threadIdx.x >= offset ? s[threadIdx.x - offset] : 0;
        __syncthreads();
        s[threadIdx.x] += add;
        __syncthreads();
    }
    if (i < n) out[i] = s[threadIdx.x];
}
