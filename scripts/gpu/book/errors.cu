// What the error-checking idiom catches (book/src/runtime-api.md): a launch the GPU refuses, a
// kernel that faults (reported later, by a call that waits for it), and the sticky error after it.
#include "check.h"

__global__ void write_at(int* data, long long index) { data[index] = 1; }

int main()
{
    int* data;
    CHECK(cudaMalloc(&data, 256 * sizeof(int)));

    write_at<<<1, 2048>>>(data, 0); // more than 1024 threads per block
    report("launch <<<1, 2048>>>: cudaGetLastError", cudaGetLastError());
    report("then cudaDeviceSynchronize", cudaDeviceSynchronize());

    write_at<<<1, 1>>>(data, 1LL << 40); // far outside any allocation
    report("launch out of bounds: cudaGetLastError", cudaGetLastError());
    report("then cudaDeviceSynchronize", cudaDeviceSynchronize());
    report("then cudaMalloc (the context is lost)", cudaMalloc(&data, 4));
    report("then cudaGetLastError", cudaGetLastError());
    return 0;
}
