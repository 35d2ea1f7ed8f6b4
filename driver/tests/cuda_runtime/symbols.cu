// Device variables the host reaches by symbol (__constant__ and __device__, with
// cudaMemcpyToSymbol and cudaMemcpyFromSymbol), dynamic shared memory, a block-wide reduction
// with __syncthreads and an atomic counter, as cuda-samples' reduction and simpleTemplates do.
#include <cstdio>
#include <cuda_runtime.h>

__constant__ float scale[2];
__device__ unsigned int blocks_done;

__global__ void scaled_sum(const float *x, float *sums, int n) {
    extern __shared__ float partial[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? x[i] * scale[0] + scale[1] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = partial[0];
        atomicAdd(&blocks_done, 1u);
    }
}

int main() {
    const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
    float x[n];
    for (int i = 0; i < n; i++) x[i] = 1.0f;
    const float factors[2] = {2.0f, 1.0f};
    cudaMemcpyToSymbol(scale, factors, sizeof factors);
    float *dx, *dsums;
    cudaMalloc(&dx, sizeof x);
    cudaMalloc(&dsums, blocks * sizeof(float));
    cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
    scaled_sum<<<blocks, threads, threads * sizeof(float)>>>(dx, dsums, n);
    float sums[blocks];
    cudaMemcpy(sums, dsums, sizeof sums, cudaMemcpyDeviceToHost);
    unsigned int done = 0;
    cudaMemcpyFromSymbol(&done, blocks_done, sizeof done);
    float total = 0;
    for (int b = 0; b < blocks; b++) total += sums[b];
    printf("total %.0f, blocks done %u: %s\n", total, done, cudaGetErrorName(cudaGetLastError()));
    cudaFree(dx);
    cudaFree(dsums);
    printf("%s\n", total == 3.0f * n && done == blocks ? "ok" : "wrong");
    return 0;
}
