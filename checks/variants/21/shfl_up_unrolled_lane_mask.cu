// The warp scan unrolled by hand with the lane from %laneid-style arithmetic on threadIdx.
__device__ __forceinline__ int scan_step(int v, int lane, int d)
{
    int up = __shfl_up_sync(0xffffffff, v, d);
    return lane >= d ? v + up : v;
}

extern "C" __global__ void scan_blocks(const int* in, int* out, int n)
{
    __shared__ int sums[8];
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    v = scan_step(v, lane, 1);
    v = scan_step(v, lane, 2);
    v = scan_step(v, lane, 4);
    v = scan_step(v, lane, 8);
    v = scan_step(v, lane, 16);
    if (lane == 31) sums[warp] = v;
    __syncthreads();
    int before = 0;
    for (unsigned w = 0; w < warp; ++w) before += sums[w];
    if (i < n) out[i] = v + before;
}
