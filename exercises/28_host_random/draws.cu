// xoroshiro128+ as numba.cuda.random has it: thread i keeps its generator's state in
// states[2i] (s0) and states[2i + 1] (s1), draws `draws` uniform floats in [0, 1) into
// out[k * threads + i], and leaves the state advanced for the next launch. Given: exercise 28
// is about making the states on the host.
__device__ unsigned long long rotl(unsigned long long x, int k) {
    return (x << k) | (x >> (64 - k));
}

extern "C" __global__ void uniform_draws(unsigned long long* states, float* out, int threads,
                                         int draws) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= threads) {
        return;
    }
    unsigned long long s0 = states[2 * i];
    unsigned long long s1 = states[2 * i + 1];
    for (int k = 0; k < draws; k++) {
        unsigned long long result = s0 + s1;
        s1 ^= s0;
        s0 = rotl(s0, 55) ^ s1 ^ (s1 << 14);
        s1 = rotl(s1, 36);
        // The top 53 bits as a double in [0, 1), then a float: Numba's uint64_to_unit_float32.
        out[k * threads + i] = (float)((double)(result >> 11) * (1.0 / 9007199254740992.0));
    }
    states[2 * i] = s0;
    states[2 * i + 1] = s1;
}
