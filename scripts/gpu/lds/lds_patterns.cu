// Shared-memory loads of 4, 8 and 16 bytes in lane patterns: how many wavefronts the hardware
// takes for each, to hold the simulator's phase model to (scripts/gpu/lds/measure.sh).
// Each launch is one warp; `pattern` picks the element each lane reads.
__device__ int element_of(int pattern, int lane) {
    switch (pattern) {
    case 0: return lane;               // consecutive
    case 1: return 0;                  // one element for all
    case 2: return lane / 16;          // two groups of 16 lanes (a tiled matmul's row operand)
    case 3: return lane / 8;           // four groups of 8
    case 4: return lane / 4;           // eight groups of 4
    case 5: return lane / 2;           // pairs
    case 6: return lane % 8;           // every quarter-warp the same 8 elements
    case 7: return lane % 16;          // both half-warps the same 16 elements
    case 8: return lane * 2;           // stride 2
    case 9: return lane * 8;           // stride 8
    case 10: return (lane % 8) * 8;    // stride 8 within a quarter, quarters alike
    case 11: return (lane / 16) * 8;   // two groups, same banks, different words
    case 12: return 31 - lane;         // reversed
    case 13: return (lane / 8) * 8;    // four groups, same banks, different words
    default: return (lane * 5) % 32;   // a permutation
    }
}

extern "C" __global__ void lds32(int pattern, float* out) {
    __shared__ float sh[2048];
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) sh[i] = i;
    __syncthreads();
    out[threadIdx.x] = sh[element_of(pattern, threadIdx.x)];
}

extern "C" __global__ void lds64(int pattern, float2* out) {
    __shared__ float2 sh[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) sh[i] = make_float2(i, -i);
    __syncthreads();
    out[threadIdx.x] = sh[element_of(pattern, threadIdx.x)];
}

extern "C" __global__ void lds128(int pattern, float4* out) {
    __shared__ float4 sh[512];
    for (int i = threadIdx.x; i < 512; i += blockDim.x) sh[i] = make_float4(i, -i, 2 * i, 3 * i);
    __syncthreads();
    out[threadIdx.x] = sh[element_of(pattern, threadIdx.x)];
}

extern "C" __global__ void lds8(int pattern, unsigned char* out) {
    __shared__ unsigned char sh[8192];
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) sh[i] = i;
    __syncthreads();
    out[threadIdx.x] = sh[element_of(pattern, threadIdx.x)];
}

extern "C" __global__ void lds16(int pattern, unsigned short* out) {
    __shared__ unsigned short sh[4096];
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) sh[i] = i;
    __syncthreads();
    out[threadIdx.x] = sh[element_of(pattern, threadIdx.x)];
}

// Stores in the same patterns (lanes that store to one element: one wins).
extern "C" __global__ void sts32(int pattern, float* out) {
    __shared__ float sh[2048];
    sh[element_of(pattern, threadIdx.x)] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = sh[threadIdx.x];
}

extern "C" __global__ void sts64(int pattern, float2* out) {
    __shared__ float2 sh[1024];
    sh[element_of(pattern, threadIdx.x)] = make_float2(threadIdx.x, 1);
    __syncthreads();
    out[threadIdx.x] = sh[threadIdx.x];
}

extern "C" __global__ void sts128(int pattern, float4* out) {
    __shared__ float4 sh[512];
    sh[element_of(pattern, threadIdx.x)] = make_float4(threadIdx.x, 1, 2, 3);
    __syncthreads();
    out[threadIdx.x] = sh[threadIdx.x];
}

extern "C" __global__ void sts8(int pattern, unsigned char* out) {
    __shared__ unsigned char sh[8192];
    sh[element_of(pattern, threadIdx.x)] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = sh[threadIdx.x];
}

extern "C" __global__ void sts16(int pattern, unsigned short* out) {
    __shared__ unsigned short sh[4096];
    sh[element_of(pattern, threadIdx.x)] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = sh[threadIdx.x];
}
