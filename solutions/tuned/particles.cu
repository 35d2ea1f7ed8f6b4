// Tuned reference for exercise 14, for `runner bench`: the structure-of-arrays step with
// 16-byte loads, four particles per thread. All six loads are in flight before the first store.

#define BLOCK 256

extern "C" __constant__ int tuned_block_x = BLOCK;
extern "C" __constant__ int tuned_items_x = 4;

#define AS4(p) reinterpret_cast<float4*>(p)
#define AS_CONST4(p) reinterpret_cast<const float4*>(p)

extern "C" __global__ void advance_soa(float* __restrict__ x, float* __restrict__ y, float* __restrict__ z,
                                       const float* __restrict__ vx, const float* __restrict__ vy,
                                       float* __restrict__ vz, float dt, int n)
{
    int q = blockIdx.x * BLOCK + threadIdx.x;
    if (q < n / 4) {
        float4 px = AS4(x)[q], py = AS4(y)[q], pz = AS4(z)[q];
        float4 ux = AS_CONST4(vx)[q], uy = AS_CONST4(vy)[q], uz = AS4(vz)[q];
        uz = make_float4(uz.x - 9.81f * dt, uz.y - 9.81f * dt, uz.z - 9.81f * dt, uz.w - 9.81f * dt);
        AS4(vz)[q] = uz;
        AS4(x)[q] = make_float4(px.x + ux.x * dt, px.y + ux.y * dt, px.z + ux.z * dt, px.w + ux.w * dt);
        AS4(y)[q] = make_float4(py.x + uy.x * dt, py.y + uy.y * dt, py.z + uy.z * dt, py.w + uy.w * dt);
        AS4(z)[q] = make_float4(pz.x + uz.x * dt, pz.y + uz.y * dt, pz.z + uz.z * dt, pz.w + uz.w * dt);
    }

    // The last n % 4 particles, one per thread of the first block.
    int i = (n / 4) * 4 + blockIdx.x * BLOCK + threadIdx.x;
    if (blockIdx.x == 0 && i < n) {
        float new_vz = vz[i] - 9.81f * dt;
        vz[i] = new_vz;
        x[i] = x[i] + vx[i] * dt;
        y[i] = y[i] + vy[i] * dt;
        z[i] = z[i] + new_vz * dt;
    }
}
