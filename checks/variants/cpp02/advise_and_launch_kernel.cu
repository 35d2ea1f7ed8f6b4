// Variant of cpp02: cudaMemAdvise (x read mostly, y preferred on the device) before the prefetches, the launch through cudaLaunchKernel, a wait with cudaDeviceSynchronize both before and after the prefetch back
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

__global__ void saxpy(float alpha, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = alpha * x[i] + y[i];
    }
}

int main() {
    hostkit::Task task = hostkit::Task::open();
    float alpha = (float)task.real("alpha");
    std::vector<float> x_in = task.read<float>("x");
    std::vector<float> y_in = task.read<float>("y");
    int n = (int)x_in.size();
    size_t bytes = n * sizeof(float);
    int device = 0;
    CHECK(cudaGetDevice(&device));
    float *x = nullptr, *y = nullptr;
    CHECK(cudaMallocManaged(&x, bytes, cudaMemAttachGlobal));
    CHECK(cudaMallocManaged(&y, bytes, cudaMemAttachGlobal));
    std::memcpy(x, x_in.data(), bytes);
    std::memcpy(y, y_in.data(), bytes);
    cudaMemLocation on_device = {cudaMemLocationTypeDevice, device};
    CHECK(cudaMemAdvise(x, bytes, cudaMemAdviseSetReadMostly, on_device));
    CHECK(cudaMemAdvise(y, bytes, cudaMemAdviseSetPreferredLocation, on_device));
    CHECK(cudaMemPrefetchAsync(x, bytes, on_device, 0, 0));
    CHECK(cudaMemPrefetchAsync(y, bytes, on_device, 0, 0));
    dim3 threads(256), blocks((n + 255) / 256);
    void *args[] = {&alpha, &x, &y, &n};
    CHECK(cudaLaunchKernel((const void *)saxpy, blocks, threads, args, 0, nullptr));
    CHECK(cudaDeviceSynchronize());
    cudaMemLocation on_host = {cudaMemLocationTypeHost, 0};
    CHECK(cudaMemPrefetchAsync(y, bytes, on_host, 0, 0));
    CHECK(cudaDeviceSynchronize());
    std::vector<float> out(y, y + n);
    task.write("y", out);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    return 0;
}
