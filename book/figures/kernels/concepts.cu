// Kernels behind the figures of book/figures/concepts.py (elementwise, debugging, random numbers).
// generate.py runs each in the simulator on a tiny launch and draws what it reports: which thread
// took which element (the kernels print `trace ...` lines), and the simulator's own diagnostics.

// PCG32 and its seeding, exactly as exercise 09 gives them.
#include "../../../solutions/09_monte_carlo_pi/monte_carlo_pi.cu"

// The elementwise pattern of the elementwise chapter, y[i] = 2 * x[i], with its bounds guard.
// Every thread says which element it took, or that it had none.
extern "C" __global__ void guarded(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 2.0f * x[i];
        printf("trace %d %d %d element\n", (int)blockIdx.x, (int)threadIdx.x, i);
    } else {
        printf("trace %d %d %d none\n", (int)blockIdx.x, (int)threadIdx.x, i);
    }
}

// The same kernel without the guard: the threads past n read and write past the arrays' ends.
extern "C" __global__ void unguarded(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = 2.0f * x[i];
}

// The first `draws` raw 32-bit numbers of each thread's PCG32 generator: stream t for thread t
// when `stream_per_thread` is 1, stream 0 for every thread when it is 0 (the mistake).
extern "C" __global__ void pcg_streams(unsigned long long seed, int draws, int stream_per_thread)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    Pcg32 rng = pcg32_init(seed, stream_per_thread ? t : 0);
    for (int d = 0; d < draws; ++d) {
        printf("trace %d %d %u\n", t, d, pcg32_next(&rng));
    }
}
