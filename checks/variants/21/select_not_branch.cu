// The warp scan adds a selected zero instead of branching; warp totals kept as an exclusive prefix.
#define BLOCK_SIZE 256
#define WARPS (BLOCK_SIZE / 32)

__device__ __forceinline__ int scan32(int v, int lane)
{
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        int up = __shfl_up_sync(0xffffffffu, v, d);
        v += (lane >= d) ? up : 0;
    }
    return v;
}

extern "C" __global__ void scan_blocks(const int* in, int* out, int n)
{
    __shared__ int before[WARPS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int v = scan32(i < n ? in[i] : 0, lane);
    if (lane == 31) before[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int t = lane < WARPS ? before[lane] : 0;
        int inclusive = scan32(t, lane);
        if (lane < WARPS) before[lane] = inclusive - t;
    }
    __syncthreads();
    v += before[warp];
    if (i < n) out[i] = v;
}
