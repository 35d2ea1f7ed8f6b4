// Mistake: the first vx read from vy
// Exercise 14: from an array of structs to a struct of arrays.
//
// A particle system advances every particle by one time step dt: gravity pulls its velocity
// down along z, then the velocity moves its position.
//
//     vz = vz - 9.81 * dt
//     x = x + vx * dt,   y = y + vy * dt,   z = z + vz * dt      (with the new vz)
//
// `advance_aos` below keeps the particles as an array of structs (AoS): all the fields of one
// particle side by side, 32 bytes per particle. That reads well, but the 32 threads of a warp
// that load `x` load 32 floats that are 32 bytes apart, one from each particle: 32 sectors for
// 128 useful bytes, and the same again for every other field. Try it:
//
//     runner sim exercises/14_aos_to_soa/particles.cu --kernel advance_aos --grid 4 --block 256 \
//         --arg f32[8192] --arg f32=0.01 --arg i32=1024
//
// A struct of arrays (SoA) keeps each field in its own array: x[0], x[1], ... side by side, so
// a warp's 32 loads of x are 128 neighbouring bytes, 4 sectors. Write `advance_soa`, the same
// step on that layout; the runner gives it the particles' fields as separate arrays, one thread
// per particle, and asks for at most 4 sectors per request.
//
// Check it with: runner check 14

// ANCHOR: aos
struct Particle {
    float x, y, z;    // position
    float vx, vy, vz; // velocity
    float mass;       // not needed by this step, but it comes along on every load
    float charge;
};

extern "C" __global__ void advance_aos(Particle* particles, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle p = particles[i];
    p.vz = p.vz - 9.81f * dt;
    p.x = p.x + p.vx * dt;
    p.y = p.y + p.vy * dt;
    p.z = p.z + p.vz * dt;
    particles[i] = p;
}
// ANCHOR_END: aos

// ANCHOR: soa
extern "C" __global__ void advance_soa(float* x, float* y, float* z, const float* vx,
                                       const float* vy, float* vz, float dt, int n)
{
    // TODO: one thread per particle, guarded as usual.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    // TODO: apply the same step as advance_aos to particle i, reading and writing each field
    // in its own array.
    // Each line reads or writes one array at index i: a warp's 32 accesses are 32 neighbouring
    // floats, 4 sectors. Only the fields the step needs are touched: mass and charge, which
    // the AoS version loaded with every particle, are not read at all.
    float new_vz = vz[i] - 9.81f * dt;
    vz[i] = new_vz;
    x[i] = x[i] + vy[i] * dt;
    y[i] = y[i] + vy[i] * dt;
    z[i] = z[i] + new_vz * dt;
}
// ANCHOR_END: soa
