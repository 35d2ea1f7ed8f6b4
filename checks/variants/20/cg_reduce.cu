// cooperative_groups' reduce over a 32-thread tile (cg::reduce with cg::plus).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduce_shuffle(const float* in, float* partial, int n)
{
    __shared__ float warp_totals[8];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) warp_totals[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        float t = warp.thread_rank() < warp.meta_group_size() ? warp_totals[warp.thread_rank()] : 0.0f;
        t = cg::reduce(warp, t, cg::plus<float>());
        if (warp.thread_rank() == 0) partial[blockIdx.x] = t;
    }
}
