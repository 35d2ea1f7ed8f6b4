// Exercise 09: estimate pi with random numbers, one generator per thread.
//
// Throw points uniformly at the unit square [0, 1) x [0, 1): the fraction that lands inside the
// quarter circle x^2 + y^2 < 1 tends to pi / 4. Every thread throws `samples_per_thread` points
// and counts its hits.
//
// Random numbers on a GPU: a generator is a small state plus a rule that turns the state into a
// number and the next state. Threads cannot share one state (they would all have to take turns
// with it), so every thread keeps its own, in registers. Here the generator is PCG32, and each
// thread starts its own stream of it: the same seed for all, and the thread's global index as
// the stream number, so that no two threads draw the same numbers. Both are given below.
//
// Reproducible: the runner's CPU reference runs the same generator with the same seeds, so the
// hit count of every thread must match exactly, on a GPU and in the simulator alike. Two things
// make that possible: the draws must happen in the same order (x, then y, for each point), and
// each coordinate is one of 2048 evenly spaced values, coarse enough that x * x + y * y is exact
// in single precision, however the compiler arranges the arithmetic.
//
// Check it with: runner check 09

// ANCHOR: generator
// PCG32 (pcg-random.org): 64 bits of state, a fixed odd increment that selects the stream.
struct Pcg32 {
    unsigned long long state;
    unsigned long long increment;
};

// The next 32 random bits; advances the state.
__device__ unsigned int pcg32_next(Pcg32* rng)
{
    unsigned long long old = rng->state;
    rng->state = old * 6364136223846793005ULL + rng->increment;
    unsigned int xorshifted = (unsigned int)(((old >> 18) ^ old) >> 27);
    unsigned int rotation = (unsigned int)(old >> 59);
    return (xorshifted >> rotation) | (xorshifted << ((32 - rotation) & 31));
}

// The generator of stream `stream`, started from `seed`; PCG's own seeding procedure.
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

// A uniform coordinate in (0, 1): the centre of one of 2048 equal cells.
__device__ float uniform_coordinate(Pcg32* rng)
{
    unsigned int cell = pcg32_next(rng) >> 21; // the top 11 bits: 0 to 2047
    return (2 * cell + 1) * (1.0f / 4096.0f);
}
// ANCHOR_END: generator

// ANCHOR: kernel
// hits[t] receives thread t's hit count; *total_hits (0 before the launch) their sum.
extern "C" __global__ void estimate_pi(unsigned int* hits, unsigned int* total_hits,
                                       unsigned long long seed, int samples_per_thread,
                                       int threads)
{
    // TODO: compute this thread's global index t; threads with t >= threads do nothing.
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;

    // TODO: start this thread's generator: pcg32_init(seed, t).
    // A local variable: the state lives in this thread's registers for the whole loop, and is
    // never read or written by another thread.
    Pcg32 rng = pcg32_init(seed, t);

    // TODO: draw samples_per_thread points (x first, then y, each with uniform_coordinate) and
    // count those with x * x + y * y < 1.
    unsigned int count = 0;
    for (int s = 1; s < samples_per_thread; ++s) {
        float x = uniform_coordinate(&rng);
        float y = uniform_coordinate(&rng);
        if (x * x + y * y < 1.0f) {
            ++count;
        }
    }

    // TODO: write the count to hits[t], and add it to *total_hits with one atomic addition.
    // Counting in a register and adding once per thread keeps the atomics few: one per thread
    // instead of one per hit.
    hits[t] = count;
    atomicAdd(total_hits, count);
}
// ANCHOR_END: kernel
