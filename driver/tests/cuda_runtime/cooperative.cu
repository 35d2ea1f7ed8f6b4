// Cooperative launches sized by the occupancy calculator: every block that fits at once (1056 of
// 256 threads on an H100) is launched, one more is refused with
// cudaErrorCooperativeLaunchTooLarge, and the refusal is no sticky error.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void count_blocks(int *blocks) {
    if (threadIdx.x == 0) atomicAdd(blocks, 1);
}

int main() {
    int per_sm = 0, sms = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, count_blocks, 256, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    int *blocks;
    cudaMalloc(&blocks, sizeof(int));
    cudaMemset(blocks, 0, sizeof(int));
    void *args[] = {&blocks};
    for (int grid = per_sm * sms; grid <= per_sm * sms + 1; grid++) {
        cudaError_t e = cudaLaunchCooperativeKernel((void *)count_blocks, grid, 256, args, 0, 0);
        printf("%d blocks: %s\n", grid, cudaGetErrorName(e));
    }
    int ran = 0;
    cudaMemcpy(&ran, blocks, sizeof ran, cudaMemcpyDeviceToHost);
    // The refusal is the last error once, not a sticky one.
    const char *last = cudaGetErrorName(cudaGetLastError());
    printf("ran %d blocks, last error %s, then %s\n", ran, last,
           cudaGetErrorName(cudaGetLastError()));
    cudaFree(blocks);
    return 0;
}
