// Tuned reference for exercise 24, for `runner bench`: one warp per row instead of one block.
// A row of up to 2048 floats (whose length is a multiple of 4) is read once, in float4s, into
// registers: the maximum, the exponentials and their sum all come from registers, and the row
// is written once. DRAM sees 8 bytes per element, the least softmax can move. Other rows take
// the three passes of the teaching solution, within the warp.

#define WARPS 8     // rows per block of 256 threads
#define MAX_QUADS 16 // float4s per lane held in registers: rows of up to 32 * 4 * 16 = 2048
#define FULL_MASK 0xffffffffu
#define NEG_INFINITY __int_as_float(0xff800000)

extern "C" __constant__ int tuned_block_x = 32 * WARPS;
extern "C" __constant__ int tuned_items_x = 256 / 32; // a check's row has 256 threads, here 32

__device__ float warp_max(float value)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        value = fmaxf(value, __shfl_xor_sync(FULL_MASK, value, offset));
    }
    return value;
}

__device__ float warp_sum(float value)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        value += __shfl_xor_sync(FULL_MASK, value, offset);
    }
    return value;
}

__device__ void softmax_in_registers(const float4* x, float4* y, int quads, int lane)
{
    float4 v[MAX_QUADS];
    float top = NEG_INFINITY;
#pragma unroll
    for (int j = 0; j < MAX_QUADS; ++j) {
        int q = lane + 32 * j;
        if (q < quads) {
            v[j] = x[q];
            top = fmaxf(top, fmaxf(fmaxf(v[j].x, v[j].y), fmaxf(v[j].z, v[j].w)));
        }
    }
    top = warp_max(top);
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < MAX_QUADS; ++j) {
        if (lane + 32 * j < quads) {
            v[j] = make_float4(expf(v[j].x - top), expf(v[j].y - top), expf(v[j].z - top), expf(v[j].w - top));
            sum += (v[j].x + v[j].y) + (v[j].z + v[j].w);
        }
    }
    float scale = 1.0f / warp_sum(sum);
#pragma unroll
    for (int j = 0; j < MAX_QUADS; ++j) {
        int q = lane + 32 * j;
        if (q < quads) {
            y[q] = make_float4(v[j].x * scale, v[j].y * scale, v[j].z * scale, v[j].w * scale);
        }
    }
}

__device__ void softmax_in_passes(const float* x, float* y, int cols, int lane)
{
    float top = NEG_INFINITY;
    for (int j = lane; j < cols; j += 32) {
        top = fmaxf(top, x[j]);
    }
    top = warp_max(top);
    float sum = 0.0f;
    for (int j = lane; j < cols; j += 32) {
        sum += expf(x[j] - top);
    }
    float scale = 1.0f / warp_sum(sum);
    for (int j = lane; j < cols; j += 32) {
        y[j] = expf(x[j] - top) * scale;
    }
}

extern "C" __global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    int row = blockIdx.x * WARPS + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float* x = in + (size_t)row * cols;
    float* y = out + (size_t)row * cols;
    if (cols % 4 == 0 && cols <= 32 * 4 * MAX_QUADS) {
        softmax_in_registers(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), cols / 4, lane);
    } else {
        softmax_in_passes(x, y, cols, lane);
    }
}
