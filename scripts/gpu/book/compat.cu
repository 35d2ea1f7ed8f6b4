// Compute capability and PTX compatibility (book/src/host-and-device.md): the same kernel built
// for other architectures than the GPU's own, and what loading it answers.
#include "check.h"

__global__ void add_one(int* x) { *x += 1; }

int main()
{
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int* x;
    CHECK(cudaMalloc(&x, sizeof(int)));
    CHECK(cudaMemset(x, 0, sizeof(int)));
    add_one<<<1, 1>>>(x);
    cudaError_t launched = cudaGetLastError();
    cudaError_t done = cudaDeviceSynchronize();
    std::printf("%s (compute capability %d.%d), built for %s: launch %s, synchronize %s\n",
                prop.name, prop.major, prop.minor, BUILT_FOR, cudaGetErrorName(launched),
                cudaGetErrorName(done));
    return 0;
}
