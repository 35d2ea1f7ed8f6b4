// Tuned reference for exercise 04, for `runner bench`: the fused kernel with 16-byte loads and
// two float4s per thread, both loaded before either is stored (see the tuned vector add).

#define BLOCK 256
#define QUADS 2 // float4s per thread

extern "C" __constant__ int tuned_block_x = BLOCK;
extern "C" __constant__ int tuned_items_x = 4 * QUADS;

__device__ float step(float x, float a, float b)
{
    float rectified = fmaxf(a * x + b, 0.0f);
    return rectified * rectified;
}

extern "C" __global__ void fused(const float* __restrict__ x, float* __restrict__ y, float a, float b, int n)
{
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    int quads = n / 4;
    int first = blockIdx.x * BLOCK * QUADS + threadIdx.x;

    float4 v[QUADS];
#pragma unroll
    for (int j = 0; j < QUADS; ++j) {
        int q = first + j * BLOCK;
        if (q < quads) {
            v[j] = x4[q];
        }
    }
#pragma unroll
    for (int j = 0; j < QUADS; ++j) {
        int q = first + j * BLOCK;
        if (q < quads) {
            y4[q] = make_float4(step(v[j].x, a, b), step(v[j].y, a, b), step(v[j].z, a, b), step(v[j].w, a, b));
        }
    }

    int i = quads * 4 + blockIdx.x * BLOCK + threadIdx.x;
    if (blockIdx.x == 0 && i < n) {
        y[i] = step(x[i], a, b);
    }
}
