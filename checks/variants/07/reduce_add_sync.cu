// The warp's matches counted with __reduce_add_sync (sm_80), one atomicAdd per warp.
extern "C" __global__ void count_above(const int* values, int* count, int threshold, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int above = (i < n && values[i] > threshold) ? 1u : 0u;
    unsigned int warp_total = __reduce_add_sync(0xffffffffu, above);
    if ((threadIdx.x & 31) == 0 && warp_total > 0) atomicAdd(count, (int)warp_total);
}
