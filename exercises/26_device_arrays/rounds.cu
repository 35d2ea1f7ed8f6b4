// One round of signal processing in three kernels: smooth (each element becomes the average of
// itself and its neighbours; the ends count themselves for the missing one), gain, clip. Each
// takes its input on the device and leaves its result there. Given: exercise 26 is about the
// program around them.
extern "C" __global__ void smooth(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float left = in[i > 0 ? i - 1 : i];
        float right = in[i < n - 1 ? i + 1 : i];
        out[i] = (left + in[i] + right) / 3.0f;
    }
}

extern "C" __global__ void gain(float* x, float g, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = x[i] * g;
    }
}

extern "C" __global__ void clip(float* x, float limit, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = fminf(fmaxf(x[i], -limit), limit);
    }
}
