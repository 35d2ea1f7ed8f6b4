// The generator's steps written inline in a while loop, hits counted with a conditional add.
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
    unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < (unsigned int)threads) {
        Pcg32 rng = pcg32_init(seed, (unsigned long long)t);
        unsigned int count = 0;
        int s = samples_per_thread;
        while (s-- > 0) {
            const float x = uniform_coordinate(&rng);
            const float y = uniform_coordinate(&rng);
            count += (x * x + y * y < 1.0f) ? 1u : 0u;
        }
        hits[t] = count;
        atomicAdd(total_hits, count);
    }
}
