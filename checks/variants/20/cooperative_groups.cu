// Cooperative groups: a 32-thread tile's shfl_down, then the first warp sums the tiles.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define BLOCK_SIZE 256

__device__ float tile_sum(cg::thread_block_tile<32> tile, float v)
{
    for (int offset = tile.size() / 2; offset > 0; offset /= 2)
        v += tile.shfl_down(v, offset);
    return v;
}

extern "C" __global__ void reduce_shuffle(const float* in, float* partial, int n)
{
    __shared__ float per_warp[BLOCK_SIZE / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = tile_sum(tile, i < n ? in[i] : 0.0f);
    if (tile.thread_rank() == 0) per_warp[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < BLOCK_SIZE / 32 ? per_warp[tile.thread_rank()] : 0.0f;
        v = tile_sum(tile, v);
        if (tile.thread_rank() == 0) partial[blockIdx.x] = v;
    }
}
