// Kernels behind the bank-conflict chapter's figures. book/figures/generate.py runs each one in the
// simulator with one warp (`--grid 1 --block 32`) and draws, for the shared-memory load on the line
// marked `// FIGURE`, which of the 32 banks each lane's word lives in, with the simulator's measured
// wavefronts per request.
//
// TRACE only tells generate.py which bytes each lane of warp 0 touched, so that it can draw them;
// the figures in the caption are those the simulator measured on the FIGURE line alone.
#define TRACE(base, address)                                                                     \
    do {                                                                                         \
        if (blockIdx.x == 0 && threadIdx.x < 32)                                                 \
            printf("trace %d %d\n", (int)threadIdx.x,                                            \
                   (int)((const char*)(address) - (const char*)(base)));                         \
    } while (0)

#define TILE 32

// Fills a TILE x (TILE + pad) tile from global memory, one row per loop trip: each store is a
// whole row, so the stores themselves are conflict-free.
template <int PAD>
__device__ void fill(float (*tile)[TILE + PAD], const float* in)
{
    for (int r = 0; r < TILE; ++r) {
        tile[r][threadIdx.x] = in[r * TILE + threadIdx.x];
    }
    __syncthreads();
}

// Lane k reads word k of one row: 32 words in 32 different banks, one wavefront.
extern "C" __global__ void row_read(const float* in, float* out)
{
    __shared__ float tile[TILE][TILE];
    fill<0>(tile, in);
    float v = tile[0][threadIdx.x]; // FIGURE
    TRACE(&tile[0][0], &tile[0][threadIdx.x]);
    out[threadIdx.x] = v;
}

// Lane k reads row k of one column, as the naive transpose does: a row is 32 words = 128 bytes,
// so every word of a column sits in the same bank. 32 lanes, one bank: 32 wavefronts.
extern "C" __global__ void column_read(const float* in, float* out)
{
    __shared__ float tile[TILE][TILE];
    fill<0>(tile, in);
    float v = tile[threadIdx.x][0]; // FIGURE
    TRACE(&tile[0][0], &tile[threadIdx.x][0]);
    out[threadIdx.x] = v;
}

// The same column read from a tile padded by one word per row: row k starts k banks further on,
// so the column's 32 words fall in 32 different banks. One wavefront again.
extern "C" __global__ void padded_column_read(const float* in, float* out)
{
    __shared__ float tile[TILE][TILE + 1];
    fill<1>(tile, in);
    float v = tile[threadIdx.x][0]; // FIGURE
    TRACE(&tile[0][0], &tile[threadIdx.x][0]);
    out[threadIdx.x] = v;
}

// A reduction step with interleaved addressing: lane k reads word 2k. Lanes k and k + 16 meet
// in the same bank with different words: a two-way conflict, 2 wavefronts.
extern "C" __global__ void interleaved_read(const float* in, float* out)
{
    __shared__ float s[2 * TILE];
    s[threadIdx.x] = in[threadIdx.x];
    s[threadIdx.x + TILE] = in[threadIdx.x + TILE];
    __syncthreads();
    float v = s[2 * threadIdx.x]; // FIGURE
    TRACE(s, &s[2 * threadIdx.x]);
    out[threadIdx.x] = v;
}

// Every lane reads the same word: one bank serves it once and broadcasts it. One wavefront.
extern "C" __global__ void broadcast_read(const float* in, float* out)
{
    __shared__ float s[TILE];
    s[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    float v = s[0]; // FIGURE
    TRACE(s, &s[0]);
    out[threadIdx.x] = v;
}
