// Hillis-Steele in shared memory with two buffers, swapped each step (one barrier a step).
#define BLOCK_SIZE 256

extern "C" __global__ void scan_blocks(const int* in, int* out, int n)
{
    __shared__ int buffer[2][BLOCK_SIZE];
    const int t = threadIdx.x;
    const int i = blockIdx.x * BLOCK_SIZE + t;
    int from = 0;
    buffer[from][t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < BLOCK_SIZE; offset <<= 1) {
        const int to = 1 - from;
        buffer[to][t] = t >= offset ? buffer[from][t] + buffer[from][t - offset] : buffer[from][t];
        __syncthreads();
        from = to;
    }
    if (i < n) out[i] = buffer[from][t];
}
