// Mistake (technique): the increment as an atomicCAS loop (the Programming Guide's pattern): read, then CAS until it sticks
// Exercise 07: fix a racy counter.
//
// The task: count how many values are greater than a threshold. Every thread looks at one value,
// and those whose value is above the threshold add one to a single counter in global memory. The
// runner sets the counter to 0 before the launch and reads it afterwards.
//
// `count_above_racy` below does this the obvious way, and it is wrong: `*count += 1` is three
// steps (read the counter, add one, write it back), and when many threads do them at the same
// time they read the same old value and write back the same new one, so most additions are
// lost, and the count comes out far too low. The simulator loses updates the same way: the 32
// threads of a warp read the counter together and write it together, so each warp adds one
// instead of up to 32.
//
// Write `count_above`, which counts correctly.
//
// Check it with: runner check 07

// ANCHOR: racy
extern "C" __global__ void count_above_racy(const int* values, int* count, int threshold, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && values[i] > threshold) {
        *count += 1; // a race: read, add, write, while other threads do the same
    }
}
// ANCHOR_END: racy

// ANCHOR: kernel
extern "C" __global__ void count_above(const int* values, int* count, int threshold, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || values[i] <= threshold) return;
    int old = *count, assumed;
    do {
        assumed = old;
        old = atomicCAS(count, assumed, assumed + 1);
    } while (old != assumed);
}
// ANCHOR_END: kernel
