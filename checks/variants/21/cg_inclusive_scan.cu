// cooperative_groups' inclusive_scan over a 32-thread tile, if the headers have it.
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

extern "C" __global__ void scan_blocks(const int* in, int* out, int n)
{
    __shared__ int warp_totals[8];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    v = cg::inclusive_scan(warp, v);
    if (warp.thread_rank() == 31) warp_totals[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        int t = warp.thread_rank() < 8 ? warp_totals[warp.thread_rank()] : 0;
        t = cg::exclusive_scan(warp, t);
        if (warp.thread_rank() < 8) warp_totals[warp.thread_rank()] = t;
    }
    block.sync();
    v += warp_totals[warp.meta_group_rank()];
    if (i < n) out[i] = v;
}
