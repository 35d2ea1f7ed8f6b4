// Kernels behind the atomics chapter's figures. book/figures/atomics.py runs each one in the
// simulator with one block of 256 threads and a counter set to 0, and draws what the threads
// print after each step (`trace STEP THREAD VALUE`) and the counter left at the end.

// The racy count of exercise 07 without the test: `*count += 1`, written as the load, the
// addition and the store it compiles to, so that each thread can print what it loaded and stored.
extern "C" __global__ void racy_increment(int* count)
{
    int loaded = *count;
    printf("trace load %d %d\n", (int)threadIdx.x, loaded);
    int stored = loaded + 1;
    printf("trace add %d %d\n", (int)threadIdx.x, stored);
    *count = stored;
    printf("trace store %d %d\n", (int)threadIdx.x, stored);
}

// The same count with one atomic addition, which returns the value it found.
extern "C" __global__ void atomic_increment(int* count)
{
    int old = atomicAdd(count, 1); // FIGURE
    printf("trace atomic %d %d\n", (int)threadIdx.x, old);
}
