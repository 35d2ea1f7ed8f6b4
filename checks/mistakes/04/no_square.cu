// Mistake: the last step left out: relu(a * x + b), not its square
// Exercise 04: fuse three elementwise steps into one kernel.
//
// The three kernels below compute y = relu(a * x + b)^2 in three launches. Each launch reads an
// array from device memory and writes another: six trips through memory for three cheap
// operations. Write `fused`, which does all three steps for one element while the value sits in
// a register: one read of x, one write of y.
//
// Check it with: runner check 04

// ANCHOR: unfused
extern "C" __global__ void scale_shift(const float* x, float* t, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = a * x[i] + b;
}

extern "C" __global__ void relu(const float* t, float* u, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) u[i] = fmaxf(t[i], 0.0f);
}

extern "C" __global__ void square(const float* u, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = u[i] * u[i];
}
// ANCHOR_END: unfused

// ANCHOR: fused
extern "C" __global__ void fused(const float* x, float* y, float a, float b, int n)
{
    // TODO: compute the global index and guard it, as in exercise 02.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    // TODO: apply the three steps to x[i], keeping the intermediate values in local variables,
    // and write the result to y[i].
    // The intermediate values live in registers: only x[i] is read and only y[i] written.
    float shifted = a * x[i] + b;
    float rectified = fmaxf(shifted, 0.0f);
    y[i] = rectified;
}
// ANCHOR_END: fused
