// Variant of cpp03: a pinned and a device buffer pair per chunk (std::vector of pointers), all allocated before the loop; two streams; each stream synchronised in turn and the events timed after
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "hostkit.h"

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                         cudaGetErrorString(err_));                                    \
            std::exit(1);                                                              \
        }                                                                              \
    } while (0)

__global__ void transform(const float *in, float *out, int n, int rounds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        for (int r = 0; r < rounds; r++) {
            x = x * 0.5f + 1.0f / (x * x + 1.0f);
        }
        out[i] = x;
    }
}

int main() {
    hostkit::Task task = hostkit::Task::open();
    int chunks = (int)task.param("chunks");
    int rounds = (int)task.param("rounds");
    std::vector<float> signal = task.read<float>("signal");
    int n = (int)signal.size();
    int chunk = (n + chunks - 1) / chunks;
    const int streams_n = 2;
    cudaStream_t streams[streams_n];
    for (auto &s : streams) CHECK(cudaStreamCreate(&s));
    std::vector<int> starts, lens;
    for (int first = 0; first < n; first += chunk) {
        starts.push_back(first);
        lens.push_back(std::min(chunk, n - first));
    }
    size_t count = starts.size();
    std::vector<float *> pin_in(count), pin_out(count), dev_in(count), dev_out(count);
    for (size_t c = 0; c < count; c++) {
        size_t bytes = lens[c] * sizeof(float);
        CHECK(cudaMallocHost(&pin_in[c], bytes));
        CHECK(cudaMallocHost(&pin_out[c], bytes));
        CHECK(cudaMalloc(&dev_in[c], bytes));
        CHECK(cudaMalloc(&dev_out[c], bytes));
        std::memcpy(pin_in[c], signal.data() + starts[c], bytes);
    }
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    for (size_t c = 0; c < count; c++) {
        cudaStream_t s = streams[c % streams_n];
        size_t bytes = lens[c] * sizeof(float);
        CHECK(cudaMemcpyAsync(dev_in[c], pin_in[c], bytes, cudaMemcpyHostToDevice, s));
        transform<<<(lens[c] + 255) / 256, 256, 0, s>>>(dev_in[c], dev_out[c], lens[c], rounds);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(pin_out[c], dev_out[c], bytes, cudaMemcpyDeviceToHost, s));
    }
    CHECK(cudaEventRecord(stop));
    for (auto s : streams) CHECK(cudaStreamSynchronize(s));
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("GPU time %.3f ms\n", ms);
    std::vector<float> result;
    result.reserve(n);
    for (size_t c = 0; c < count; c++) result.insert(result.end(), pin_out[c], pin_out[c] + lens[c]);
    for (size_t c = 0; c < count; c++) {
        CHECK(cudaFreeHost(pin_in[c]));
        CHECK(cudaFreeHost(pin_out[c]));
        CHECK(cudaFree(dev_in[c]));
        CHECK(cudaFree(dev_out[c]));
    }
    for (auto s : streams) CHECK(cudaStreamDestroy(s));
    task.write("signal", result);
    return 0;
}
