// Every array read once into a local through __ldg or a plain load, __restrict__ everywhere.
extern "C" __global__ void advance_soa(float* __restrict__ x, float* __restrict__ y,
                                       float* __restrict__ z, const float* __restrict__ vx,
                                       const float* __restrict__ vy, float* __restrict__ vz,
                                       float dt, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float vxi = __ldg(vx + i);
        const float vyi = __ldg(vy + i);
        const float vzi = vz[i] - 9.81f * dt;
        x[i] += vxi * dt;
        y[i] += vyi * dt;
        z[i] += vzi * dt;
        vz[i] = vzi;
    }
}
