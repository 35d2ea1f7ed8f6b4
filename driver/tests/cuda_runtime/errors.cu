// The error-checking idiom: a launch the device refuses (2048 threads in a block) is reported by
// cudaGetLastError, named by cudaGetErrorName, and cleared; the next launch and synchronise
// succeed.
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e = (call);                                                       \
        if (e != cudaSuccess) {                                                       \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));         \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

__global__ void fill(int *out, int value) { out[threadIdx.x] = value; }

int main() {
    int *d;
    CHECK(cudaMalloc(&d, 32 * sizeof(int)));
    fill<<<1, 2048>>>(d, 1);
    cudaError_t refused = cudaGetLastError();
    printf("too many threads: %s\n", cudaGetErrorName(refused));
    printf("cleared: %s\n", cudaGetErrorName(cudaGetLastError()));
    fill<<<1, 32>>>(d, 7);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int h[32];
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    printf("%s\n", h[0] == 7 && h[31] == 7 ? "ok" : "wrong");
    return 0;
}
