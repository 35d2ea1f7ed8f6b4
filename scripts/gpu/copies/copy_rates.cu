// Host<->device copy times on this machine, pinned and pageable, in both directions, over sizes
// from 4 KiB to 256 MiB: the figures the simulator's driver (driver/src/record.rs) models copies
// with. Each size: one warm-up copy, then the median of 9 timed with events.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static float time_copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> ms;
    cudaMemcpy(dst, src, bytes, kind);
    for (int i = 0; i < 9; i++) {
        cudaEventRecord(a);
        cudaMemcpy(dst, src, bytes, kind);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float t;
        cudaEventElapsedTime(&t, a, b);
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms[ms.size() / 2];
}

int main() {
    const size_t most = 256u << 20;
    void* device;
    void* pinned;
    cudaMalloc(&device, most);
    cudaMallocHost(&pinned, most);
    void* pageable = malloc(most);
    memset(pageable, 1, most);
    memset(pinned, 1, most);
    printf("| bytes | pinned to device (us) | pageable to device (us) | device to pinned (us) | device to pageable (us) |\n");
    printf("| ---: | ---: | ---: | ---: | ---: |\n");
    for (size_t bytes = 4096; bytes <= most; bytes *= 4) {
        float a = time_copy(device, pinned, bytes, cudaMemcpyHostToDevice);
        float b = time_copy(device, pageable, bytes, cudaMemcpyHostToDevice);
        float c = time_copy(pinned, device, bytes, cudaMemcpyDeviceToHost);
        float d = time_copy(pageable, device, bytes, cudaMemcpyDeviceToHost);
        printf("| %zu | %.1f | %.1f | %.1f | %.1f |\n", bytes, a * 1e3, b * 1e3, c * 1e3, d * 1e3);
    }
    return 0;
}
