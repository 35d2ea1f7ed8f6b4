// Adjacent shared loads of one thread: which ones ptxas merges into one wide load (read from
// the machine code, `cuobjdump -sass`), to model the merging in the simulator.
#define TILE 16
extern "C" __global__ void merge_row(float* out, int k0) {
    // A tiled matmul's row operand: sh[ty][k..k+3], the row 64 bytes, k a multiple of 4.
    __shared__ float sh[TILE][TILE];
    sh[threadIdx.y][threadIdx.x] = threadIdx.x;
    __syncthreads();
    float sum = 0;
#pragma unroll
    for (int k = 0; k < TILE; k++) sum += sh[threadIdx.y][k] * k;
    out[threadIdx.y * TILE + threadIdx.x] = sum;
}

extern "C" __global__ void merge_runtime_base(float* out, int base) {
    // Alignment unknown: base comes from the host.
    __shared__ float sh[1024];
    sh[threadIdx.x] = threadIdx.x;
    __syncthreads();
    int b = base + threadIdx.x;
    out[threadIdx.x] = sh[b] + sh[b + 1] + sh[b + 2] + sh[b + 3];
}

extern "C" __global__ void merge_even_base(float* out, int base) {
    // 8-byte aligned: an even index.
    __shared__ float sh[1024];
    sh[threadIdx.x] = threadIdx.x;
    __syncthreads();
    int b = 2 * (base + threadIdx.x);
    out[threadIdx.x] = sh[b] + sh[b + 1] + sh[b + 2] + sh[b + 3];
}

extern "C" __global__ void merge_quad_base(float* out, int base) {
    // 16-byte aligned: a multiple of 4.
    __shared__ float sh[1024];
    sh[threadIdx.x] = threadIdx.x;
    __syncthreads();
    int b = 4 * (base + threadIdx.x);
    out[threadIdx.x] = sh[b] + sh[b + 1] + sh[b + 2] + sh[b + 3];
}

extern "C" __global__ void merge_store_between(float* out, int base) {
    __shared__ float sh[1024];
    sh[threadIdx.x] = threadIdx.x;
    __syncthreads();
    int b = 4 * threadIdx.x;
    float a = sh[b];
    sh[(base + threadIdx.x) % 1024] = 1.0f;
    float c = sh[b + 1];
    out[threadIdx.x] = a + c + sh[b + 2] + sh[b + 3];
}

extern "C" __global__ void merge_global_quad(const float* in, float* out) {
    // The same for global memory: in + 4 * i is 16-byte aligned only if `in` is.
    int i = threadIdx.x;
    const float* p = in + 4 * i;
    out[i] = p[0] + p[1] + p[2] + p[3];
}

extern "C" __global__ void merge_shorts(const short* in, int* out, int base) {
    __shared__ short sh[2048];
    sh[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    int b = 2 * threadIdx.x;
    out[threadIdx.x] = sh[b] + sh[b + 1];
}
