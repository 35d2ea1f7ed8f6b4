// Unified Memory: one pointer (cudaMallocManaged) written by the host, doubled by a kernel after a
// prefetch and advice, and read back by the host with no copy; the driver says the device has
// managed memory, and the pointer is managed.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void twice(int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= 2;
}

int main() {
    const int n = 1000;
    int managed = 0, concurrent = 0;
    cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, 0);
    cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0);
    printf("managed %d concurrent %d\n", managed, concurrent);
    int *a;
    cudaMallocManaged(&a, n * sizeof(int));
    for (int i = 0; i < n; i++) a[i] = i;
    cudaMemLocation device = {cudaMemLocationTypeDevice, 0};
    cudaMemAdvise(a, n * sizeof(int), cudaMemAdviseSetReadMostly, device);
    cudaMemPrefetchAsync(a, n * sizeof(int), device, 0, 0);
    twice<<<(n + 255) / 256, 256>>>(a, n);
    cudaDeviceSynchronize();
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += a[i] != 2 * i;
    // The host writes again; the next kernel sees it.
    a[7] = 100;
    twice<<<(n + 255) / 256, 256>>>(a, n);
    cudaDeviceSynchronize();
    int read_mostly = 0;
    cudaMemRangeGetAttribute(&read_mostly, sizeof read_mostly, cudaMemRangeAttributeReadMostly, a,
                             n * sizeof(int));
    cudaPointerAttributes attributes;
    cudaPointerGetAttributes(&attributes, a);
    printf("a[7] %d read mostly %d type %d\n", a[7], read_mostly, (int)attributes.type);
    cudaFree(a);
    printf("%s\n%s\n", cudaGetErrorName(cudaGetLastError()), wrong ? "wrong" : "ok");
    return 0;
}
