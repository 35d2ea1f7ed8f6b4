// Tuned reference for exercises 19 and 20, for `runner bench`: the same sums of 256-element chunks,
// one warp per chunk instead of one block. Each lane loads two float4s (8 elements) at once, adds
// them, and the warp adds its 32 partial sums with shuffles: no shared memory and no barrier,
// and 32 bytes in flight per thread instead of 4.

#define CHUNK 256 // elements per sum, the check's block size
#define WARPS 8   // chunks per block of 256 threads
#define FULL_MASK 0xffffffffu

extern "C" __constant__ int tuned_block_x = 32 * WARPS;
extern "C" __constant__ int tuned_items_x = CHUNK / 32;

__device__ void block_sums(const float* __restrict__ in, float* __restrict__ partial, int n)
{
    int lane = threadIdx.x % 32;
    int chunk = blockIdx.x * WARPS + threadIdx.x / 32;
    int start = chunk * CHUNK;
    if (start >= n) return;

    float sum = 0.0f;
    if (start + CHUNK <= n) {
        const float4* x4 = reinterpret_cast<const float4*>(in + start);
        float4 u = x4[lane];
        float4 v = x4[lane + 32];
        sum = ((u.x + u.y) + (u.z + u.w)) + ((v.x + v.y) + (v.z + v.w));
    } else {
        for (int i = start + lane; i < n; i += 32) {
            sum += in[i];
        }
    }

    for (int offset = 16; offset > 0; offset /= 2) {
        sum += __shfl_down_sync(FULL_MASK, sum, offset);
    }
    if (lane == 0) {
        partial[chunk] = sum;
    }
}

// The entry points of exercises 19 and 20.
extern "C" __global__ void reduce_sequential(const float* __restrict__ in, float* __restrict__ partial, int n)
{
    block_sums(in, partial, n);
}

extern "C" __global__ void reduce_shuffle(const float* __restrict__ in, float* __restrict__ partial, int n)
{
    block_sums(in, partial, n);
}
