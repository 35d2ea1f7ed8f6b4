// Thread block clusters with distributed shared memory, and a cooperative launch with a grid-wide
// barrier (book/src/clusters-and-grid-sync.md): the two ways blocks may wait for each other.
#include "check.h"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Each block of a cluster fills its own shared array, then reads its partner's: block rank r
// reads rank r ^ 1's, through distributed shared memory.
// ANCHOR: cluster
__global__ void swap_with_partner(int* out)
{
    __shared__ int mine[256];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    mine[threadIdx.x] = 1000 * blockIdx.x + threadIdx.x;
    cluster.sync(); // every block of the cluster has written its array
    const int* theirs = cluster.map_shared_rank(mine, rank ^ 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = theirs[threadIdx.x];
    cluster.sync(); // a block's shared memory must outlive its partner's reads
}
// ANCHOR_END: cluster

// Phase 1 writes one value per thread; after the grid-wide barrier, each thread reads a value
// written by a thread of the next block.
// ANCHOR: grid
__global__ void two_phases(int* data, int* out)
{
    cg::grid_group grid = cg::this_grid();
    unsigned long long i = grid.thread_rank();
    data[i] = int(i);
    grid.sync();
    out[i] = data[(i + blockDim.x) % grid.num_threads()];
}
// ANCHOR_END: grid

int main()
{
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    const int blocks = 16, threads = 256;
    int *out, *data;
    CHECK(cudaMalloc(&out, 1 << 24));
    CHECK(cudaMalloc(&data, 1 << 24));

    CHECK(cudaFuncSetAttribute(swap_with_partner, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    for (int size : {2, 8, 16}) {
        cudaLaunchConfig_t config = {};
        config.gridDim = dim3(blocks);
        config.blockDim = dim3(threads);
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = size;
        attr.val.clusterDim.y = 1;
        attr.val.clusterDim.z = 1;
        config.attrs = &attr;
        config.numAttrs = 1;
        int clusters = 0;
        CHECK(cudaOccupancyMaxActiveClusters(&clusters, swap_with_partner, &config));
        CHECK(cudaLaunchKernelEx(&config, swap_with_partner, out));
        CHECK(cudaDeviceSynchronize());
        int host[blocks * threads];
        CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int b = 0; b < blocks; ++b)
            for (int t = 0; t < threads; ++t)
                wrong += host[b * threads + t] != 1000 * (b ^ 1) + t;
        std::printf("clusters of %2d blocks: at most %3d clusters resident at once; block 0 read %d, "
                    "block 1 read %d; %d wrong\n",
                    size, clusters, host[0], host[threads], wrong);
    }

    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, two_phases, threads, 0));
    int fit = per_sm * prop.multiProcessorCount;
    std::printf("two_phases, %d threads a block: %d blocks per SM x %d SMs = %d blocks at once\n",
                threads, per_sm, prop.multiProcessorCount, fit);
    for (int grid : {fit, fit + 1}) {
        void* args[] = {&data, &out};
        cudaError_t err = cudaLaunchCooperativeKernel((void*)two_phases, grid, threads, args, 0, 0);
        if (err == cudaSuccess) err = cudaDeviceSynchronize();
        std::printf("cooperative launch of %d blocks: %s", grid, cudaGetErrorName(err));
        if (err == cudaSuccess) {
            int first = 0;
            CHECK(cudaMemcpy(&first, out, sizeof first, cudaMemcpyDeviceToHost));
            std::printf(" (thread 0 read %d, written by block 1 before the barrier)", first);
        }
        std::printf("\n");
    }
    return 0;
}
