// A 2D array in pitched device memory (cudaMallocPitch), copied in and out as rectangles
// (cudaMemcpy2D), each thread of a 2D grid finding its row by the pitch.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add_row_index(float *a, size_t pitch, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) ((float *)((char *)a + y * pitch))[x] += y;
}

int main() {
    const int width = 100, height = 5;
    float h[height][width];
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) h[y][x] = x;
    float *d;
    size_t pitch;
    cudaMallocPitch(&d, &pitch, width * sizeof(float), height);
    printf("pitch %zu\n", pitch);
    cudaMemcpy2D(d, pitch, h, sizeof h[0], width * sizeof(float), height, cudaMemcpyHostToDevice);
    add_row_index<<<dim3(4, 2), dim3(32, 4)>>>(d, pitch, width, height);
    cudaMemcpy2D(h, sizeof h[0], d, pitch, width * sizeof(float), height, cudaMemcpyDeviceToHost);
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    int wrong = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) wrong += h[y][x] != x + y;
    cudaFree(d);
    printf("%s\n", wrong ? "wrong" : "ok");
    return 0;
}
