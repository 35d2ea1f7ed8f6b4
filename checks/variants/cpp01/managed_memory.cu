// Variant of cpp01: cudaMallocManaged in place of explicit copies: the host fills the managed arrays, the kernel runs, cudaDeviceSynchronize, then y is read from managed memory
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
    if (i < n) y[i] = alpha * x[i] + y[i];
}

int main() {
    hostkit::Task task = hostkit::Task::open();
    float alpha = (float)task.real("alpha");
    std::vector<float> x_in = task.read<float>("x");
    std::vector<float> y_in = task.read<float>("y");
    int n = (int)x_in.size();
    float *x, *y;
    CHECK(cudaMallocManaged(&x, n * sizeof(float)));
    CHECK(cudaMallocManaged(&y, n * sizeof(float)));
    for (int i = 0; i < n; i++) {
        x[i] = x_in[i];
        y[i] = y_in[i];
    }
    saxpy<<<(n + 255) / 256, 256>>>(alpha, x, y, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> result(y, y + n);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    task.write("y", result);
    return 0;
}
