// Exercise 06: choose the launch configuration yourself.
//
// Until now the runner chose how many blocks to launch and how many threads each has. Here you
// choose, by declaring two values in this file; the runner reads them from the compiled module
// and launches `distances` as <<<blocks_per_grid, threads_per_block>>> on every case, small and
// large. So the kernel must be right for any n with the grid you pick: use a grid-stride loop
// (exercise 05).
//
// What makes a good choice (the chapter "Launch configuration" explains why):
// - threads_per_block: at most 1024, and a multiple of 32, because the GPU runs threads in warps
//   of 32 and a partial warp leaves lanes idle. 128 to 512 usually do well.
// - blocks_per_grid: enough blocks to give every streaming multiprocessor (SM) several of them,
//   so that while some warps wait for memory others have work. An H100 has 132 SMs.
// On a GPU, `runner check 06` reports the kernel's time and bandwidth: try a few choices.
// Targets: at most 2x the time of the course's solution, measured on a GPU; in the simulator, a
// launch of at least a quarter of the solution's threads (it shows the time modelled for an H100
// too). A grid of a few blocks leaves most of the GPU idle and misses both.
//
// The kernel computes each point's distance from the origin: dist[i] = sqrt(x[i]^2 + y[i]^2).
//
// Check it with: runner check 06

// ANCHOR: config
// TODO: declare the launch configuration, as
//     extern "C" __constant__ int threads_per_block = ...;
//     extern "C" __constant__ int blocks_per_grid = ...;

// ANCHOR_END: config

// ANCHOR: kernel
extern "C" __global__ void distances(const float* x, const float* y, float* dist, int n)
{
    // TODO: give every point from 0 to n - 1 its distance, with a grid-stride loop. sqrtf is
    // the single-precision square root.
}
// ANCHOR_END: kernel
