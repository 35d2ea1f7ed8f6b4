// Variant of cpp01: the launch through cudaLaunchKernel with an argument array and dim3 sizes; errors checked by a function (not a macro) that takes the file and line
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "hostkit.h"

static void check(cudaError_t err, const char *what, int line) {
    if (err != cudaSuccess) {
        std::fprintf(stderr, "line %d: %s: %s\n", line, what, cudaGetErrorString(err));
        std::exit(1);
    }
}

__global__ void saxpy(float alpha, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i] + y[i];
}

int main() {
    hostkit::Task task = hostkit::Task::open();
    float alpha = (float)task.real("alpha");
    std::vector<float> x = task.read<float>("x");
    std::vector<float> y = task.read<float>("y");
    int n = (int)x.size();
    size_t bytes = x.size() * sizeof(float);
    float *x_dev, *y_dev;
    check(cudaMalloc((void **)&x_dev, bytes), "cudaMalloc x", __LINE__);
    check(cudaMalloc((void **)&y_dev, bytes), "cudaMalloc y", __LINE__);
    check(cudaMemcpy(x_dev, x.data(), bytes, cudaMemcpyHostToDevice), "copy x", __LINE__);
    check(cudaMemcpy(y_dev, &y[0], bytes, cudaMemcpyHostToDevice), "copy y", __LINE__);
    dim3 block(128);
    dim3 grid((n + block.x - 1) / block.x);
    void *args[] = {&alpha, &x_dev, &y_dev, &n};
    check(cudaLaunchKernel((const void *)saxpy, grid, block, args, 0, 0), "launch", __LINE__);
    check(cudaDeviceSynchronize(), "kernel", __LINE__);
    check(cudaMemcpy(y.data(), y_dev, bytes, cudaMemcpyDeviceToHost), "copy back", __LINE__);
    check(cudaFree(y_dev), "free y", __LINE__);
    check(cudaFree(x_dev), "free x", __LINE__);
    task.write("y", y);
    return 0;
}
