// Unified Memory (book/src/runtime-api.md): one pointer for host and device; pages move on
// demand when first touched, or ahead of time with a prefetch. 256 MiB, far below the card's.
#include "check.h"

__global__ void add_one(float* x, size_t n)
{
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

static float timed(float* x, size_t n, cudaStream_t st)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, st));
    add_one<<<(n + 255) / 256, 256, 0, st>>>(x, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop, st));
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
}

static void prefetch(float* x, size_t bytes, int device, cudaStream_t st)
{
#if CUDART_VERSION >= 13000
    cudaMemLocation where{};
    where.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    where.id = device == cudaCpuDeviceId ? 0 : device;
    CHECK(cudaMemPrefetchAsync(x, bytes, where, 0, st));
#else
    CHECK(cudaMemPrefetchAsync(x, bytes, device, st));
#endif
}

int main()
{
    int concurrent = 0, pageable = 0;
    CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
    CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0));
    std::printf("concurrentManagedAccess %d, pageableMemoryAccess %d\n", concurrent, pageable);
    const size_t n = size_t(1) << 26;
    const size_t bytes = n * sizeof(float);
    // ANCHOR: managed
    float* x;
    CHECK(cudaMallocManaged(&x, bytes));
    cudaStream_t st;
    CHECK(cudaStreamCreate(&st));
    for (size_t i = 0; i < n; ++i) x[i] = 0.0f; // the pages are now on the host
    std::printf("kernel, pages on the host (faulted over): %7.3f ms\n", timed(x, n, st));
    std::printf("kernel again, pages now on the device:    %7.3f ms\n", timed(x, n, st));
    double sum = 0;
    for (size_t i = 0; i < n; i += 1024) sum += x[i]; // the host reads: those pages come back
    prefetch(x, bytes, 0, st);
    // ANCHOR_END: managed
    CHECK(cudaStreamSynchronize(st));
    std::printf("kernel after cudaMemPrefetchAsync:        %7.3f ms\n", timed(x, n, st));
    prefetch(x, bytes, cudaCpuDeviceId, st);
    CHECK(cudaStreamSynchronize(st));
    std::printf("x[0] = %.0f, x[n-1] = %.0f (host reads after three kernels; sum of samples %.0f)\n",
                x[0], x[n - 1], sum);
    CHECK(cudaFree(x));
    return 0;
}
