// Online softmax: one pass keeps a running max and a rescaled sum, merged across the block.
#define BLOCK_SIZE 256
#define NEG_INF (-__int_as_float(0x7f800000))

__device__ void merge(float& m, float& s, float m2, float s2)
{
    float mx = fmaxf(m, m2);
    s = (m == NEG_INF ? 0.0f : s * expf(m - mx)) + (m2 == NEG_INF ? 0.0f : s2 * expf(m2 - mx));
    m = mx;
}

extern "C" __global__ void softmax_rows(const float* in, float* out, int rows, int cols)
{
    __shared__ float sm[BLOCK_SIZE / 32], ss[BLOCK_SIZE / 32];
    __shared__ float row_m, row_s;
    const float* x = in + (size_t)blockIdx.x * cols;
    float m = NEG_INF, s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        merge(m, s, x[j], 1.0f);
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffff, m, o);
        float s2 = __shfl_xor_sync(0xffffffff, s, o);
        merge(m, s, m2, s2);
    }
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (lane == 0) { sm[w] = m; ss[w] = s; }
    __syncthreads();
    if (w == 0) {
        m = lane < BLOCK_SIZE / 32 ? sm[lane] : NEG_INF;
        s = lane < BLOCK_SIZE / 32 ? ss[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) {
            float m2 = __shfl_xor_sync(0xffffffff, m, o);
            float s2 = __shfl_xor_sync(0xffffffff, s, o);
            merge(m, s, m2, s2);
        }
        if (lane == 0) { row_m = m; row_s = s; }
    }
    __syncthreads();
    float* y = out + (size_t)blockIdx.x * cols;
    float inv = 1.0f / row_s;
    for (int j = threadIdx.x; j < cols; j += blockDim.x)
        y[j] = expf(x[j] - row_m) * inv;
}
