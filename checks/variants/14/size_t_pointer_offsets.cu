// 64-bit index, pointers offset once, a #define for gravity.
#define GRAVITY 9.81f

extern "C" __global__ void advance_soa(float* x, float* y, float* z, const float* vx,
                                       const float* vy, float* vz, float dt, int n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)n) return;
    float *px = x + i, *py = y + i, *pz = z + i, *pvz = vz + i;
    *pvz -= GRAVITY * dt;
    *px += vx[i] * dt;
    *py += vy[i] * dt;
    *pz += *pvz * dt;
}
