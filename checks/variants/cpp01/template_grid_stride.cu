// Variant of cpp01: a templated kernel (saxpy<float>) with a grid-stride loop on a grid capped at 64 blocks of 512 threads; cudaDeviceSynchronize left to the blocking copy back
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

template <typename T>
__global__ void saxpy(T alpha, const T *x, T *y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = alpha * x[i] + y[i];
    }
}

int main() {
    hostkit::Task task = hostkit::Task::open();
    const float alpha = static_cast<float>(task.real("alpha"));
    std::vector<float> x = task.read<float>("x");
    std::vector<float> y = task.read<float>("y");
    const int n = static_cast<int>(x.size());
    const size_t bytes = sizeof(float) * n;
    float *x_dev = nullptr;
    float *y_dev = nullptr;
    CHECK(cudaMalloc(&x_dev, bytes));
    CHECK(cudaMalloc(&y_dev, bytes));
    CHECK(cudaMemcpy(x_dev, x.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y_dev, y.data(), bytes, cudaMemcpyHostToDevice));
    int blocks = (n + 511) / 512;
    if (blocks > 64) blocks = 64;
    saxpy<float><<<blocks, 512>>>(alpha, x_dev, y_dev, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(y.data(), y_dev, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(x_dev));
    CHECK(cudaFree(y_dev));
    task.write("y", y);
    return 0;
}
