// Mistake: y read by the host before any wait: the kernel may not have run yet
// Exercise cpp02: Unified Memory. One pointer that the host and the kernels both use, and no
// cudaMemcpy at all.
//
// cudaMallocManaged gives memory that the host and the GPU both address with the same pointer:
// the host writes the inputs straight into it, a kernel reads and writes it, and the host reads
// the results from it. The driver moves the pages to whoever touches them. Two things are left
// to the program:
// - Where the pages should be before they are needed. A kernel that touches a page the GPU does
//   not hold stops while it migrates, page fault after page fault; a prefetch
//   (cudaMemPrefetchAsync) moves the whole buffer ahead of time, at copy speed. The same holds
//   on the way back, for the host's first reads.
// - When the host may read. A launch returns at once, before its kernel has run: until the
//   program waits (cudaDeviceSynchronize), the kernel may still be writing what the host reads.
//
// `runner check cpp02` builds this file with nvcc, gives it each case (x, y and alpha through
// hostkit.h), checks the y it hands back, and reads from the driver's record what the program
// did with managed memory: its prefetches, launches and waits, in order, and that it made no
// copies. In the simulator a kernel's results reach the host only when the program waits, so a
// program that reads too early reads y as it was before the kernel, every time.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

const int THREADS = 256;

// y = alpha * x + y, one element per thread. Given: the exercise is the memory around it.
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
    std::printf("saxpy on %d elements in managed memory, alpha = %g\n", n, alpha);
    int device = 0;
    CHECK(cudaGetDevice(&device));
    float *x = nullptr, *y = nullptr;

    // ANCHOR: allocate
    // Managed memory: one pointer each, for the host and the kernels alike. Given.
    CHECK(cudaMallocManaged(&x, bytes));
    CHECK(cudaMallocManaged(&y, bytes));
    // The host writes managed memory as its own: no copy.
    std::copy(x_in.begin(), x_in.end(), x);
    std::copy(y_in.begin(), y_in.end(), y);
    // ANCHOR_END: allocate

    // ANCHOR: to_device
    // TODO 1: before the launch, prefetch x and y to the GPU (cudaMemPrefetchAsync to a
    // cudaMemLocation of type cudaMemLocationTypeDevice and id `device`, flags 0, stream 0).
    cudaMemLocation on_device = {cudaMemLocationTypeDevice, device};
    CHECK(cudaMemPrefetchAsync(x, bytes, on_device, 0, 0));
    CHECK(cudaMemPrefetchAsync(y, bytes, on_device, 0, 0));
    // ANCHOR_END: to_device

    saxpy<<<(n + THREADS - 1) / THREADS, THREADS>>>(alpha, x, y, n);
    CHECK(cudaGetLastError());

    // ANCHOR: to_host
    // TODO 2: prefetch y back to the host (a cudaMemLocation of type cudaMemLocationTypeHost),
    // then wait for the GPU (cudaDeviceSynchronize) before the host reads y.
    cudaMemLocation on_host = {cudaMemLocationTypeHost, 0};
    CHECK(cudaMemPrefetchAsync(y, bytes, on_host, 0, 0));
    // The prefetch is queued after the kernel, and the wait covers both.
    // ANCHOR_END: to_host

    // y is handed back straight from managed memory.
    task.write("y", y, n);
    // TODO 3: free x and y (cudaFree frees managed memory too).
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    return 0;
}
