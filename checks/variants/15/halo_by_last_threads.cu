// Left halo loaded by the first RADIUS threads, right halo by the last RADIUS threads.
#define BLOCK_SIZE 256
#define RADIUS 3

extern "C" __global__ void stencil_1d(const float* in, float* out, int n)
{
    __shared__ float s_in[RADIUS + BLOCK_SIZE + RADIUS];
    int gid = threadIdx.x + blockIdx.x * BLOCK_SIZE;
    int lid = threadIdx.x + RADIUS;
    s_in[lid] = gid < n ? in[gid] : 0.0f;
    if (threadIdx.x < RADIUS)
        s_in[lid - RADIUS] = gid - RADIUS >= 0 ? in[gid - RADIUS] : 0.0f;
    if (threadIdx.x >= BLOCK_SIZE - RADIUS)
        s_in[lid + RADIUS] = gid + RADIUS < n ? in[gid + RADIUS] : 0.0f;
    __syncthreads();
    if (gid < n) {
        float result = s_in[lid - 3] + s_in[lid - 2] + s_in[lid - 1] + s_in[lid]
                     + s_in[lid + 1] + s_in[lid + 2] + s_in[lid + 3];
        out[gid] = result;
    }
}
