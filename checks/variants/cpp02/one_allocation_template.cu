// Variant of cpp02: x and y in one managed allocation of 2n floats (y = x + n), prefetched whole with one call each way, a templated kernel with a grid-stride loop
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

template <typename T>
__global__ void saxpy(T alpha, const T *x, T *y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = alpha * x[i] + y[i];
}

int main() {
    hostkit::Task task = hostkit::Task::open();
    float alpha = (float)task.real("alpha");
    std::vector<float> x_in = task.read<float>("x");
    std::vector<float> y_in = task.read<float>("y");
    int n = (int)x_in.size();
    int device = 0;
    CHECK(cudaGetDevice(&device));
    float *both = nullptr;
    CHECK(cudaMallocManaged(&both, 2 * n * sizeof(float)));
    float *x = both, *y = both + n;
    std::copy(x_in.begin(), x_in.end(), x);
    std::copy(y_in.begin(), y_in.end(), y);
    cudaMemLocation dev = {cudaMemLocationTypeDevice, device};
    CHECK(cudaMemPrefetchAsync(both, 2 * n * sizeof(float), dev, 0, 0));
    saxpy<float><<<32, 256>>>(alpha, x, y, n);
    CHECK(cudaGetLastError());
    cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    CHECK(cudaMemPrefetchAsync(y, n * sizeof(float), host, 0, 0));
    CHECK(cudaDeviceSynchronize());
    task.write("y", y, n);
    CHECK(cudaFree(both));
    return 0;
}
