// Positions first, then the new vz used for z: the same arithmetic in another order of stores.
extern "C" __global__ void advance_soa(float* x, float* y, float* z, const float* vx,
                                       const float* vy, float* vz, float dt, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= n) return;
    x[i] = x[i] + vx[i] * dt;
    y[i] = y[i] + vy[i] * dt;
    float v = vz[i] - 9.81f * dt;
    z[i] = z[i] + v * dt;
    vz[i] = v;
}
