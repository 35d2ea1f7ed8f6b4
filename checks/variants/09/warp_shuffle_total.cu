// Hits summed across the warp with __shfl_xor_sync, lane 0 adding the warp's total.
struct Pcg32 {
    unsigned long long state;
    unsigned long long increment;
};

__device__ unsigned int pcg32_next(Pcg32* rng)
{
    unsigned long long old = rng->state;
    rng->state = old * 6364136223846793005ULL + rng->increment;
    unsigned int xorshifted = (unsigned int)(((old >> 18) ^ old) >> 27);
    unsigned int rotation = (unsigned int)(old >> 59);
    return (xorshifted >> rotation) | (xorshifted << ((32 - rotation) & 31));
}

__device__ Pcg32 pcg32_init(unsigned long long seed, unsigned long long stream)
{
    Pcg32 rng;
    rng.state = 0;
    rng.increment = (stream << 1) | 1;
    pcg32_next(&rng);
    rng.state += seed;
    pcg32_next(&rng);
    return rng;
}

__device__ float uniform_coordinate(Pcg32* rng)
{
    unsigned int cell = pcg32_next(rng) >> 21;
    return (2 * cell + 1) * (1.0f / 4096.0f);
}

extern "C" __global__ void estimate_pi(unsigned int* hits, unsigned int* total_hits,
                                       unsigned long long seed, int samples_per_thread,
                                       int threads)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int count = 0;
    if (t < threads) {
        Pcg32 rng = pcg32_init(seed, t);
#pragma unroll 4
        for (int s = 0; s < samples_per_thread; ++s) {
            float x = uniform_coordinate(&rng);
            float y = uniform_coordinate(&rng);
            count += x * x + y * y < 1.0f;
        }
        hits[t] = count;
    }
    // Every lane takes part (threads past the end add 0), so the full mask is right.
    unsigned int sum = count;
    for (int offset = 16; offset > 0; offset >>= 1) {
        sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    }
    if ((threadIdx.x & 31) == 0 && sum != 0) atomicAdd(total_hits, sum);
}
