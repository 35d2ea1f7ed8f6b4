// Tuned reference for exercise 05, for `runner bench`: the grid-stride loop over float4s, under
// the check's own small grid. Each step loads both operands of two float4s before it stores.

#define QUADS 2 // float4s per thread per step

extern "C" __global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a, int n)
{
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    int quads = n / 4;
    int threads = gridDim.x * blockDim.x;
    int thread = blockIdx.x * blockDim.x + threadIdx.x;

    for (int first = thread; first < quads; first += QUADS * threads) {
        float4 u[QUADS], v[QUADS];
#pragma unroll
        for (int j = 0; j < QUADS; ++j) {
            int q = first + j * threads;
            if (q < quads) {
                u[j] = x4[q];
                v[j] = y4[q];
            }
        }
#pragma unroll
        for (int j = 0; j < QUADS; ++j) {
            int q = first + j * threads;
            if (q < quads) {
                y4[q] = make_float4(a * u[j].x + v[j].x, a * u[j].y + v[j].y, a * u[j].z + v[j].z,
                                    a * u[j].w + v[j].w);
            }
        }
    }

    int i = quads * 4 + thread;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
