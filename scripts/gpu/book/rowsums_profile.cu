// Nsight Compute walkthrough (book/src/profiling.md): exercise 13's row_sums, built from the file
// named by KERNEL_FILE (the mistake "one thread per row", or the solution), run on a
// 8192 x 8192 matrix with the runner's launch plan: rows * 32 threads in blocks of 256.
#include "check.h"
#include KERNEL_FILE

int main()
{
    const int rows = 8192, cols = 8192;
    size_t n = size_t(rows) * cols;
    float *matrix, *sums;
    CHECK(cudaMalloc(&matrix, n * sizeof(float)));
    CHECK(cudaMalloc(&sums, rows * sizeof(float)));
    CHECK(cudaMemset(matrix, 0, n * sizeof(float)));
    int threads = 256, blocks = (rows * 32 + threads - 1) / threads;
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int launch = 0; launch < 2; ++launch) { // the first launch warms up; the second is timed
        CHECK(cudaMemset(sums, 0, rows * sizeof(float)));
        CHECK(cudaEventRecord(start));
        row_sums<<<blocks, threads>>>(matrix, sums, rows, cols);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
    }
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("row_sums %d x %d: %.3f ms, %.0f GB/s\n", rows, cols, ms, n * 4 / ms / 1e6);
    return 0;
}
