// Gravity applied to vy's position update instead of vz.
extern "C" __global__ void advance_soa(float* x, float* y, float* z, const float* vx,
                                       const float* vy, float* vz, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float new_vz = vz[i] - 9.81f * dt;
    vz[i] = new_vz;
    x[i] = x[i] + vx[i] * dt;
    y[i] = y[i] + (vy[i] - 9.81f * dt) * dt;
    z[i] = z[i] + vz[i] * dt;
}
