// What the compiler makes of the atomics the book describes (book/src/atomics.md and the cheat
// sheet), read in the SASS: a histogram on global memory, a float sum, and the vector and half
// precision forms of atomicAdd.
#include <cuda_fp16.h>

extern "C" __global__ void histogram_global(const unsigned char* data, unsigned* bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i]], 1u); // each lane its own bin
}

extern "C" __global__ void float_sum(const float* x, float* sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(sum, x[i]); // one address, a different value per lane
}

extern "C" __global__ void add_float2(float2* p, float2 v) { atomicAdd(p, v); }

extern "C" __global__ void add_half2(__half2* p, __half2 v) { atomicAdd(p, v); }
