// Variant of cpp01: copies and the launch on a stream created with cudaStreamNonBlocking, cudaMemcpyAsync both ways, one cudaStreamSynchronize before y is read; device memory freed after the host copy is written out
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

__global__ void saxpy(float alpha, const float *__restrict__ x, float *__restrict__ y, int n) {
    const int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= n) return;
    y[i] = fmaf(alpha, x[i], y[i]);
}

int main() {
    hostkit::Task task = hostkit::Task::open();
    float alpha = (float)task.real("alpha");
    std::vector<float> x = task.read<float>("x");
    std::vector<float> y = task.read<float>("y");
    int n = (int)x.size();
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    float *d_x, *d_y;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMemcpyAsync(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    CHECK(cudaMemcpyAsync(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    saxpy<<<(n + 255) / 256, 256, 0, stream>>>(alpha, d_x, d_y, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    task.write("y", y);
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaStreamDestroy(stream));
    return 0;
}
