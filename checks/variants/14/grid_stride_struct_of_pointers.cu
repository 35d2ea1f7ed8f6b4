// The arrays gathered into a struct of pointers inside the kernel, walked by a grid-stride loop.
struct Soa {
    float* x;
    float* y;
    float* z;
    const float* vx;
    const float* vy;
    float* vz;
};

__device__ void step(const Soa& p, int i, float dt)
{
    const float g = 9.81f;
    float nvz = p.vz[i] - g * dt;
    p.vz[i] = nvz;
    p.x[i] = p.x[i] + p.vx[i] * dt;
    p.y[i] = p.y[i] + p.vy[i] * dt;
    p.z[i] = p.z[i] + nvz * dt;
}

extern "C" __global__ void advance_soa(float* x, float* y, float* z, const float* vx,
                                       const float* vy, float* vz, float dt, int n)
{
    Soa p{x, y, z, vx, vy, vz};
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        step(p, i, dt);
    }
}
