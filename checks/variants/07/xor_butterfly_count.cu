// A shuffle-xor butterfly sums the warp's matches; lane 0 adds them.
extern "C" __global__ void count_above(const int* __restrict__ values, int* count, int threshold,
                                      int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int mine = i < n ? (__ldg(values + i) > threshold) : 0;
#pragma unroll
    for (int mask = 16; mask >= 1; mask /= 2) mine += __shfl_xor_sync(0xffffffff, mine, mask);
    if (threadIdx.x % 32 == 0 && mine != 0) atomicAdd(count, mine);
}
