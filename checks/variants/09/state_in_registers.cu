// The state kept in two plain variables instead of the struct, updated by hand.
__device__ unsigned int next_bits(unsigned long long& state, unsigned long long inc)
{
    const unsigned long long old = state;
    state = old * 6364136223846793005ULL + inc;
    const unsigned int xorshifted = (unsigned int)(((old >> 18) ^ old) >> 27);
    const unsigned int rot = (unsigned int)(old >> 59);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

__device__ float coordinate(unsigned long long& state, unsigned long long inc)
{
    const unsigned int cell = next_bits(state, inc) >> 21;
    return (float)(2 * cell + 1) / 4096.0f;
}

extern "C" __global__ void estimate_pi(unsigned int* hits, unsigned int* total_hits,
                                       unsigned long long seed, int samples_per_thread,
                                       int threads)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    const unsigned long long inc = ((unsigned long long)t << 1) | 1ULL;
    unsigned long long state = 0;
    next_bits(state, inc);
    state += seed;
    next_bits(state, inc);
    unsigned int count = 0;
    for (int s = 0; s < samples_per_thread; ++s) {
        const float x = coordinate(state, inc);
        const float y = coordinate(state, inc);
        if (x * x + y * y < 1.0f) ++count;
    }
    hits[t] = count;
    atomicAdd(total_hits, count);
}
