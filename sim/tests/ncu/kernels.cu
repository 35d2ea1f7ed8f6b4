// Validation kernels for the simulator's memory figures.
//
// Each kernel has one known access pattern. cases.toml launches them; measure.sh takes their
// figures with Nsight Compute on a GPU (ncu_figures.json) and the simulator must report the same
// numbers for the PTX that NVRTC makes of this file. Bodies are kept plain so that ptxas has
// nothing to rewrite: one load and one store per thread (or per row, in the transposes), no
// neighbouring accesses in one thread that it could merge into a wider one.

#define TILE_DIM 32
#define BLOCK_ROWS 8

// ---------------------------------------------------------------------------------------------
// Global memory: coalescing.

// out[i] = in[i * stride]: a warp's 32 loads span 32 * stride floats.
extern "C" __global__ void copy_stride(float* out, const float* in, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i * stride];
    }
}

// out[i] = in[i + offset]: the warp's 128 bytes start `offset` floats past a 128-byte line.
extern "C" __global__ void copy_offset(float* out, const float* in, int n, int offset)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i + offset];
    }
}

// 8-byte accesses; n2 is the number of float2 elements (the buffers hold 2 * n2 floats).
extern "C" __global__ void copy_float2(float* out, const float* in, int n2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        reinterpret_cast<float2*>(out)[i] = reinterpret_cast<const float2*>(in)[i];
    }
}

// 16-byte accesses; n4 is the number of float4 elements (the buffers hold 4 * n4 floats).
extern "C" __global__ void copy_float4(float* out, const float* in, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
    }
}

// ---------------------------------------------------------------------------------------------
// Transposes of an n x n matrix (n a multiple of 32): blocks of 32 x 8 threads, each thread
// moving 4 rows of a 32 x 32 tile (the layout of NVIDIA's "efficient matrix transpose" post).

// Reads rows (coalesced), writes columns (each lane of a warp in a different row).
extern "C" __global__ void transpose_naive(float* out, const float* in, int n)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        out[x * n + (y + j)] = in[(y + j) * n + x];
    }
}

// Through a 32 x 32 tile: global reads and writes both coalesced, but the tile is read down a
// column, so all 32 lanes hit one bank (32 wavefronts per read).
extern "C" __global__ void transpose_tiled(float* out, const float* in, int n)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

// Same, with rows padded to 33 floats: a column now falls in 32 different banks.
extern "C" __global__ void transpose_padded(float* out, const float* in, int n)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

// ---------------------------------------------------------------------------------------------
// Shared memory: banks. Launched with 1024 threads a block. Each thread fills one element
// (a conflict-free store), then each warp reads sh[lane * stride] and writes it out (coalesced).

// 4-byte reads, stride in floats. stride 0 is a broadcast through a run-time index.
extern "C" __global__ void shared_stride(float* out, int stride)
{
    __shared__ float sh[1024];
    int t = threadIdx.x;
    sh[t] = (float)t;
    __syncthreads();
    int lane = t & 31;
    out[blockIdx.x * blockDim.x + t] = sh[lane * stride];
}

// All lanes read one word: one wavefront, no conflict.
extern "C" __global__ void shared_broadcast(float* out)
{
    __shared__ float sh[1024];
    int t = threadIdx.x;
    sh[t] = (float)t;
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = sh[0];
}

// shared_stride on dynamic shared memory (launch with 4096 bytes).
extern "C" __global__ void shared_stride_dynamic(float* out, int stride)
{
    extern __shared__ float dsh[];
    int t = threadIdx.x;
    dsh[t] = (float)t;
    __syncthreads();
    int lane = t & 31;
    out[blockIdx.x * blockDim.x + t] = dsh[lane * stride];
}

// 8-byte reads and writes (float2), stride in float2 elements: served as two half-warps.
extern "C" __global__ void shared_stride_float2(float* out, int stride)
{
    __shared__ float2 sh2[1024];
    int t = threadIdx.x;
    sh2[t] = make_float2((float)t, (float)(2 * t));
    __syncthreads();
    int lane = t & 31;
    float2 v = sh2[lane * stride];
    out[blockIdx.x * blockDim.x + t] = v.x + v.y;
}

// 16-byte reads and writes (float4), stride in float4 elements: served as four quarter-warps.
extern "C" __global__ void shared_stride_float4(float* out, int stride)
{
    __shared__ float4 sh4[1024];
    int t = threadIdx.x;
    sh4[t] = make_float4((float)t, (float)(2 * t), (float)(3 * t), (float)(4 * t));
    __syncthreads();
    int lane = t & 31;
    float4 v = sh4[lane * stride];
    out[blockIdx.x * blockDim.x + t] = (v.x + v.y) + (v.z + v.w);
}
