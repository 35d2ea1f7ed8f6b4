// Mapped page-locked memory: a kernel writes the host's memory through the device pointer
// cudaHostGetDevicePointer gives (the host's own, with unified addressing), and registered
// memory mapped the same way; the host reads both with no copy.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void square(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

int main() {
    const int n = 300;
    int can_map = 0;
    cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0);
    int *in, *in_device, *out_device;
    cudaHostAlloc(&in, n * sizeof(int), cudaHostAllocMapped);
    for (int i = 0; i < n; i++) in[i] = i;
    cudaHostGetDevicePointer(&in_device, in, 0);
    int *out = (int *)aligned_alloc(4096, 4096);
    cudaHostRegister(out, 4096, cudaHostRegisterMapped);
    cudaHostGetDevicePointer(&out_device, out, 0);
    square<<<(n + 127) / 128, 128>>>(in_device, out_device, n);
    cudaDeviceSynchronize();
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += out[i] != i * i;
    printf("can map %d same pointer %d\n", can_map, in_device == in && out_device == out);
    cudaHostUnregister(out);
    free(out);
    cudaFreeHost(in);
    printf("%s\n%s\n", cudaGetErrorName(cudaGetLastError()), wrong ? "wrong" : "ok");
    return 0;
}
