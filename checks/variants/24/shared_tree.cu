// Max and sum reduced by a sequential-addressing tree in shared memory, no shuffles.
#define BLOCK_SIZE 256

extern "C" __global__ void softmax_rows(const float* in, float* out, int rows, int cols)
{
    __shared__ float red[BLOCK_SIZE];
    int row = blockIdx.x, t = threadIdx.x;
    const float* x = in + (size_t)row * cols;
    float mx = -3.402823466e+38f;
    for (int j = t; j < cols; j += BLOCK_SIZE) mx = fmaxf(mx, x[j]);
    red[t] = mx;
    __syncthreads();
    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (t < s) red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    mx = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int j = t; j < cols; j += BLOCK_SIZE) sum += expf(x[j] - mx);
    red[t] = sum;
    __syncthreads();
    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    sum = red[0];
    for (int j = t; j < cols; j += BLOCK_SIZE)
        out[(size_t)row * cols + j] = expf(x[j] - mx) / sum;
}
