// A kernel that writes past its allocation: the error reaches the program at its next
// synchronising call (cudaDeviceSynchronize), as on a GPU, and stays (a sticky error).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void unguarded(int *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 1; }

int main() {
    int *d;
    cudaMalloc(&d, 1000 * sizeof(int));
    unguarded<<<4, 256>>>(d);
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    int h;
    printf("copy after: %s\n", cudaGetErrorName(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost)));
    return 0;
}
