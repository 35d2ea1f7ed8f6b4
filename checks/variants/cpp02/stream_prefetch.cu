// Variant of cpp02: the prefetches and the launch on a stream of its own, cudaStreamSynchronize(stream) in place of cudaDeviceSynchronize; the inputs written by a loop
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
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    float *x, *y;
    CHECK(cudaMallocManaged(&x, bytes));
    CHECK(cudaMallocManaged(&y, bytes));
    for (int i = 0; i < n; ++i) {
        x[i] = x_in[i];
        y[i] = y_in[i];
    }
    cudaMemLocation gpu{};
    gpu.type = cudaMemLocationTypeDevice;
    gpu.id = device;
    CHECK(cudaMemPrefetchAsync(x, bytes, gpu, 0, stream));
    CHECK(cudaMemPrefetchAsync(y, bytes, gpu, 0, stream));
    saxpy<<<(n + 127) / 128, 128, 0, stream>>>(alpha, x, y, n);
    CHECK(cudaGetLastError());
    cudaMemLocation cpu{};
    cpu.type = cudaMemLocationTypeHost;
    cpu.id = 0;
    CHECK(cudaMemPrefetchAsync(y, bytes, cpu, 0, stream));
    CHECK(cudaStreamSynchronize(stream));
    task.write("y", y, n);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaStreamDestroy(stream));
    return 0;
}
