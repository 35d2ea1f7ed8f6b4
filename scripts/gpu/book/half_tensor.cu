// Half precision and tensor cores (book/src/half-precision.md): what a half holds, a half2 FMA,
// and one 16 x 16 x 16 matrix product on the tensor cores through WMMA, checked on the CPU.
#include "check.h"
#include <cuda_fp16.h>
#include <mma.h>

__global__ void axpy_half2(const __half2* x, __half2* y, __half2 a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hfma2(a, x[i], y[i]); // two halves per instruction
}

// ANCHOR: wmma
__global__ void mma_16x16x16(const __half* a, const __half* b, float* c)
{
    using namespace nvcuda::wmma;
    fragment<matrix_a, 16, 16, 16, __half, row_major> fa;
    fragment<matrix_b, 16, 16, 16, __half, row_major> fb;
    fragment<accumulator, 16, 16, 16, float> fc;
    fill_fragment(fc, 0.0f);
    load_matrix_sync(fa, a, 16);
    load_matrix_sync(fb, b, 16);
    mma_sync(fc, fa, fb, fc); // the whole warp computes c = a * b + c
    store_matrix_sync(c, fc, 16, mem_row_major);
}
// ANCHOR_END: wmma

int main()
{
    for (float v : {2048.0f, 2049.0f, 0.1f, 65504.0f, 70000.0f, 1e-8f})
        std::printf("float %-10g -> half -> %g\n", v, __half2float(__float2half(v)));

    __half ha[256], hb[256];
    float want[256], got[256];
    for (int k = 0; k < 256; ++k) {
        ha[k] = __float2half(float((k * 7) % 11) - 5.0f);
        hb[k] = __float2half(float((k * 3) % 13) / 4.0f);
    }
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) {
            float s = 0;
            for (int k = 0; k < 16; ++k) s += __half2float(ha[r * 16 + k]) * __half2float(hb[k * 16 + c]);
            want[r * 16 + c] = s;
        }
    __half *da, *db;
    float* dc;
    CHECK(cudaMalloc(&da, sizeof ha));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&dc, sizeof got));
    CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    mma_16x16x16<<<1, 32>>>(da, db, dc);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, dc, sizeof got, cudaMemcpyDeviceToHost));
    float worst = 0;
    for (int k = 0; k < 256; ++k) worst = fmaxf(worst, fabsf(got[k] - want[k]));
    std::printf("16x16x16 product on the tensor cores: c[0][0] = %g (CPU %g), largest difference %g\n",
                got[0], want[0], worst);

    const int n = 1 << 20;
    __half2 *x, *y;
    CHECK(cudaMalloc(&x, n * sizeof(__half2)));
    CHECK(cudaMalloc(&y, n * sizeof(__half2)));
    axpy_half2<<<(n + 255) / 256, 256>>>(x, y, __floats2half2_rn(2.0f, 2.0f), n);
    CHECK(cudaDeviceSynchronize());
    return 0;
}
