// Timing a kernel with events (cudaEventRecord, cudaEventSynchronize, cudaEventElapsedTime), as
// cuda-samples' asyncAPI does, and querying the device.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float *x, float by, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] *= by;
}

int main() {
    int count = 0;
    cudaGetDeviceCount(&count);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("devices: %d, compute capability %d.%d, %d SMs\n", count, prop.major, prop.minor,
           prop.multiProcessorCount);
    const int n = 1 << 16;
    float *d;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemset(d, 0, n * sizeof(float));
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    scale<<<64, 256>>>(d, 2.0f, n);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = -1;
    cudaError_t e = cudaEventElapsedTime(&ms, start, stop);
    printf("elapsed: %s, %s\n", cudaGetErrorName(e), ms > 0 ? "positive" : "not positive");
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(d);
    printf("ok\n");
    return 0;
}
