// Variant of cpp02: the host waits on an event recorded after the prefetch back (cudaEventSynchronize) instead of cudaDeviceSynchronize; managed memory freed in the reverse order
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
    int device;
    CHECK(cudaGetDevice(&device));
    float *x, *y;
    CHECK(cudaMallocManaged(&x, bytes));
    CHECK(cudaMallocManaged(&y, bytes));
    std::copy(x_in.begin(), x_in.end(), x);
    std::copy(y_in.begin(), y_in.end(), y);
    cudaEvent_t done;
    CHECK(cudaEventCreate(&done));
    cudaMemLocation on_device = {cudaMemLocationTypeDevice, device};
    CHECK(cudaMemPrefetchAsync(x, bytes, on_device, 0, 0));
    CHECK(cudaMemPrefetchAsync(y, bytes, on_device, 0, 0));
    saxpy<<<(n + 255) / 256, 256>>>(alpha, x, y, n);
    CHECK(cudaGetLastError());
    cudaMemLocation on_host = {cudaMemLocationTypeHost, 0};
    CHECK(cudaMemPrefetchAsync(y, bytes, on_host, 0, 0));
    CHECK(cudaEventRecord(done, 0));
    CHECK(cudaEventSynchronize(done));
    task.write("y", y, n);
    CHECK(cudaEventDestroy(done));
    CHECK(cudaFree(y));
    CHECK(cudaFree(x));
    return 0;
}
