// The baseline the runner is compared with: vector add built with nvcc, with its own check.
// Build and run: nvcc -O3 -arch=sm_90 vector_add_nvcc.cu -o vector_add && ./vector_add
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main()
{
    const int sizes[] = {1, 1000, 769, 65539};
    for (int n : sizes) {
        std::vector<float> a(n), b(n), c(n);
        for (int i = 0; i < n; ++i) { a[i] = rand() / (float)RAND_MAX; b[i] = rand() / (float)RAND_MAX; }
        float *da, *db, *dc;
        cudaMalloc(&da, n * sizeof(float));
        cudaMalloc(&db, n * sizeof(float));
        cudaMalloc(&dc, n * sizeof(float));
        cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
        cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
        vector_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
        if (cudaDeviceSynchronize() != cudaSuccess) { printf("launch failed\n"); return 1; }
        cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost);
        for (int i = 0; i < n; ++i)
            if (c[i] != a[i] + b[i]) { printf("n = %d: wrong at %d\n", n, i); return 1; }
        cudaFree(da); cudaFree(db); cudaFree(dc);
    }
    printf("vector_add: all cases passed\n");
    return 0;
}
