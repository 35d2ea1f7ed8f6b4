// cooperative_groups' block sync instead of __syncthreads.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define BLOCK_SIZE 256

extern "C" __global__ void reverse(const float* in, float* out, int n)
{
    __shared__ float chunk[BLOCK_SIZE];
    cg::thread_block block = cg::this_thread_block();
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK_SIZE + t;
    if (i < n) {
        chunk[t] = in[i];
    }
    block.sync();
    int j = n - (blockIdx.x + 1) * BLOCK_SIZE + t;
    if (j >= 0) {
        out[j] = chunk[BLOCK_SIZE - 1 - t];
    }
}
