// cooperative_groups: the lanes that found a match form a coalesced group, its leader adds its size.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void count_above(const int* values, int* count, int threshold, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && values[i] > threshold) {
        cg::coalesced_group active = cg::coalesced_threads();
        if (active.thread_rank() == 0) atomicAdd(count, (int)active.size());
    }
}
