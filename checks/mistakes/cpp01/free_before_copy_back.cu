// Mistake: y_dev freed before the copy back: the copy reads freed memory, which the runtime refuses
// Exercise cpp01: your first CUDA C++ program, on the CUDA runtime API.
//
// The kernel is written. Yours is the program around it: allocate device memory, copy x and y
// in, launch one thread per element, copy y back, free. Every runtime call returns a
// cudaError_t, and a launch returns nothing at all: its errors wait in cudaGetLastError() (a
// bad configuration) or come at the next call that waits for the GPU (a fault while it ran).
// A program that checks none of them prints a wrong answer and never says why.
//
// `runner check cpp01` builds this file with nvcc, gives it each test case (x, y and alpha
// through hostkit.h) and checks the y it hands back, and what it did through the driver.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include "hostkit.h"

// ANCHOR: check
// TODO 1: define CHECK(call): run the call, and if its cudaError_t is not cudaSuccess print the
// file, line and cudaGetErrorString of the error, and exit(1).
#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                         cudaGetErrorString(err_));                                    \
            std::exit(1);                                                              \
        }                                                                              \
    } while (0)
// ANCHOR_END: check

// y = alpha * x + y, one element per thread. Given: the exercise is the program around it.
__global__ void saxpy(float alpha, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = alpha * x[i] + y[i];
    }
}

int main() {
    hostkit::Task task = hostkit::Task::open();
    float alpha = (float)task.real("alpha");
    std::vector<float> x = task.read<float>("x");
    std::vector<float> y = task.read<float>("y");
    int n = (int)x.size();
    size_t bytes = n * sizeof(float);
    std::printf("saxpy on %d elements, alpha = %g\n", n, alpha);
    float *x_dev = nullptr, *y_dev = nullptr;

    // ANCHOR: steps
    // TODO 2: allocate x_dev and y_dev on the device (cudaMalloc: sizes are in bytes).
    CHECK(cudaMalloc(&x_dev, bytes));
    CHECK(cudaMalloc(&y_dev, bytes));

    // TODO 3: copy x and y to the device (cudaMemcpy, cudaMemcpyHostToDevice).
    CHECK(cudaMemcpy(x_dev, x.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y_dev, y.data(), bytes, cudaMemcpyHostToDevice));

    // TODO 4: launch saxpy with 256 threads per block and enough blocks for n elements (the
    // last block may be partly idle), then check the launch (cudaGetLastError) and wait for the
    // kernel to finish (cudaDeviceSynchronize), checking that too.
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    saxpy<<<blocks, threads>>>(alpha, x_dev, y_dev, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    // TODO 5: copy y back from the device (cudaMemcpyDeviceToHost), and free both arrays.
    CHECK(cudaFree(x_dev));
    CHECK(cudaFree(y_dev));
    CHECK(cudaMemcpy(y.data(), y_dev, bytes, cudaMemcpyDeviceToHost));
    // ANCHOR_END: steps

    task.write("y", y);
    return 0;
}
