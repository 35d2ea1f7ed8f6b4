#include <cstdio>
#include "../../../sim/tests/fixtures/global_atomics.cu"
int main() {
    int* data;
    int* out;
    cudaMalloc(&data, 4096 * sizeof(int));
    cudaMalloc(&out, 64 * sizeof(int));
    cudaMemset(data, 0, 4096 * sizeof(int));
    float* f = (float*)data;
    add_coalesced<<<1, 32>>>(data);
    add_one_word<<<1, 32>>>(data);
    add_one_word_lane<<<1, 32>>>(data);
    add_one_per_sector<<<1, 32>>>(data);
    add_pairs<<<1, 32>>>(data);
    add_coalesced_returned<<<1, 32>>>(data, out);
    add_one_word_returned<<<1, 32>>>(data, out);
    cudaMemset(data, 0, 4096 * sizeof(int));
    fadd_coalesced<<<1, 32>>>(f);
    fadd_one_word<<<1, 32>>>(f);
    cudaMemset(data, 0, 4096 * sizeof(int));
    max_one_word<<<1, 32>>>(data);
    inc_one_word<<<1, 32>>>((unsigned*)data);
    cas_one_word<<<1, 32>>>(data);
    exch_coalesced<<<1, 32>>>(data);
    cudaMemset(data, 0, 4096 * sizeof(int));
    add_loaded_address<<<1, 32>>>(data);
    add_one_word_half_warp<<<1, 32>>>(data);
    add_block_uniform<<<1, 32>>>(data);
    cudaError_t e = cudaDeviceSynchronize();
    printf("harness: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
