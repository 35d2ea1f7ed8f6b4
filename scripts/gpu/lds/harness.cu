#include <cstdio>
#include "lds_patterns.cu"
#include "../../../sim/tests/fixtures/shared_merges.cu"
int main() {
    float4* out;
    cudaMalloc(&out, 32 * sizeof(float4));
    for (int p = 0; p < 15; p++) lds32<<<1, 32>>>(p, (float*)out);
    for (int p = 0; p < 15; p++) lds64<<<1, 32>>>(p, (float2*)out);
    for (int p = 0; p < 15; p++) lds128<<<1, 32>>>(p, out);
    for (int p = 0; p < 15; p++) lds8<<<1, 32>>>(p, (unsigned char*)out);
    for (int p = 0; p < 15; p++) lds16<<<1, 32>>>(p, (unsigned short*)out);
    for (int p = 0; p < 15; p++) sts32<<<1, 32>>>(p, (float*)out);
    for (int p = 0; p < 15; p++) sts64<<<1, 32>>>(p, (float2*)out);
    for (int p = 0; p < 15; p++) sts128<<<1, 32>>>(p, out);
    for (int p = 0; p < 15; p++) sts8<<<1, 32>>>(p, (unsigned char*)out);
    for (int p = 0; p < 15; p++) sts16<<<1, 32>>>(p, (unsigned short*)out);
    float* f;
    short* s;
    cudaMalloc(&f, 8192 * sizeof(float));
    cudaMalloc(&s, 4096 * sizeof(short));
    cudaMemset(f, 0, 8192 * sizeof(float));
    cudaMemset(s, 0, 4096 * sizeof(short));
    merge_row<<<1, dim3(16, 16)>>>(f, 0);
    merge_runtime_base<<<1, 32>>>(f, 3);
    merge_even_base<<<1, 32>>>(f, 3);
    merge_quad_base<<<1, 32>>>(f, 3);
    merge_store_between<<<1, 32>>>(f, 5);
    merge_global_quad<<<1, 32>>>(f, f + 4096);
    merge_shorts<<<1, 32>>>(s, (int*)f, 0);
    cudaError_t e = cudaDeviceSynchronize();
    printf("harness: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
