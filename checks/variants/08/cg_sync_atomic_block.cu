// cooperative_groups' block sync and atomicAdd_block on the shared bins.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void histogram(const unsigned char* data, unsigned int* bins, int n)
{
    __shared__ unsigned int counts[256];
    cg::thread_block block = cg::this_thread_block();
    for (unsigned int b = block.thread_rank(); b < 256; b += block.size()) counts[b] = 0;
    block.sync();
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        atomicAdd_block(&counts[data[i]], 1u);
    }
    block.sync();
    for (unsigned int b = block.thread_rank(); b < 256; b += block.size()) {
        const unsigned int c = counts[b];
        if (c != 0) atomicAdd(&bins[b], c);
    }
}
