// Mistake: integer division: 1 / (1 + (int)e^(-x)) is 0 or 1, never in between
// Exercise 03: the ufunc pattern.
//
// Numba's @vectorize turns a function of one number into a function over whole arrays. Here
// you write only the scalar function; the kernel below, which is already done, applies it to
// every element. Write the logistic sigmoid:
//
//     sigmoid(x) = 1 / (1 + e^(-x))
//
// Single-precision math functions such as expf work inside device code. The result is compared
// with a double-precision reference, within a small tolerance.
//
// Check it with: runner check 03

// ANCHOR: ufunc
__device__ float sigmoid(float x)
{
    float y = 0.0f;
    // TODO: set y to the logistic sigmoid of x.
    // expf(-x) overflows to infinity for x below about -88, and 1 / infinity is 0: the right limit.
    y = 1 / (1 + (int)expf(-x));
    return y;
}
// ANCHOR_END: ufunc

// ANCHOR: kernel
// Applies the ufunc to every element: the part @vectorize(target='cuda') writes for you.
extern "C" __global__ void apply_ufunc(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = sigmoid(x[i]);
    }
}
// ANCHOR_END: kernel
