// cooperative_groups' block sync and 64-bit global offsets.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define TILE 32

extern "C" __global__ void transpose_conflict_free(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const unsigned int c = blockIdx.x * TILE + threadIdx.x;
    const unsigned int r = blockIdx.y * TILE + threadIdx.y;
    if (r < (unsigned)rows && c < (unsigned)cols) tile[threadIdx.y][threadIdx.x] = in[(size_t)r * cols + c];
    cg::this_thread_block().sync();
    const unsigned int out_r = blockIdx.x * TILE + threadIdx.y;
    const unsigned int out_c = blockIdx.y * TILE + threadIdx.x;
    if (out_r < (unsigned)cols && out_c < (unsigned)rows)
        out[(size_t)out_r * rows + out_c] = tile[threadIdx.x][threadIdx.y];
}
