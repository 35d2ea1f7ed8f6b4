// Kernels behind the figures of the shared-memory chapter and the reduction figures of the
// bank-conflicts chapter. book/figures/shared_memory.py runs them in the simulator.
//
// The small versions here (blocks of 16 threads, 8 x 8 and 4 x 4 tiles, trees of 64 values) are
// the exercises' kernels cut down to a size that can be drawn, with a `trace ...` line printed
// for each thing a thread does, so that the figure draws what the simulator ran. The traffic the
// captions compare comes from the exercises' own kernels (solutions/15 to 19, exercise 11's naive
// matrix multiply) at the book's sizes, plus stencil_naive below, which no exercise has.

// ---------------------------------------------------------------------------------------------
// Stencil (exercise 15): a moving sum of radius 3.

// Each thread reads its whole window from global memory: every element is loaded by the
// 2 * 3 + 1 threads whose windows cover it.
extern "C" __global__ void stencil_naive(const float* in, float* out, int n)
{
    const int radius = 3;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float sum = 0.0f;
        for (int offset = -radius; offset <= radius; ++offset) {
            int j = i + offset;
            sum += j >= 0 && j < n ? in[j] : 0.0f;
        }
        out[i] = sum;
    }
}

// Exercise 15's tiled stencil with blocks of 16 threads. Each store into the tile prints
// `trace tile THREAD SLOT ELEMENT` for block 1 (ELEMENT -1: a zero outside the array).
#define STENCIL_BLOCK 16
#define STENCIL_RADIUS 3

extern "C" __global__ void stencil_tiled_traced(const float* in, float* out, int n)
{
    __shared__ float tile[STENCIL_BLOCK + 2 * STENCIL_RADIUS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x + STENCIL_RADIUS;
    bool traced = blockIdx.x == 1;

    tile[t] = i < n ? in[i] : 0.0f;
    if (traced) printf("trace tile %d %d %d\n", (int)threadIdx.x, t, i < n ? i : -1);
    if (threadIdx.x < STENCIL_RADIUS) {
        int left = i - STENCIL_RADIUS;
        int right = i + STENCIL_BLOCK;
        tile[threadIdx.x] = left >= 0 ? in[left] : 0.0f;
        tile[t + STENCIL_BLOCK] = right < n ? in[right] : 0.0f;
        if (traced) {
            printf("trace tile %d %d %d\n", (int)threadIdx.x, (int)threadIdx.x, left >= 0 ? left : -1);
            printf("trace tile %d %d %d\n", (int)threadIdx.x, t + STENCIL_BLOCK, right < n ? right : -1);
        }
    }
    __syncthreads();
    if (i < n) {
        float sum = 0.0f;
        for (int offset = -STENCIL_RADIUS; offset <= STENCIL_RADIUS; ++offset) {
            sum += tile[t + offset];
        }
        out[i] = sum;
    }
}

// ---------------------------------------------------------------------------------------------
// Tiled transpose (exercise 16) with an 8 x 8 tile. Step 1 prints `trace load X Y FROM TO`
// (element FROM of `in` into word TO of the tile), step 2 `trace store X Y FROM TO` (word FROM of
// the tile into element TO of `out`), for thread (X, Y) of block (0, 0).
#define SMALL_TILE 8

extern "C" __global__ void transpose_tiled_traced(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[SMALL_TILE][SMALL_TILE];
    int x = threadIdx.x, y = threadIdx.y;
    bool traced = blockIdx.x == 0 && blockIdx.y == 0;

    int c = blockIdx.x * SMALL_TILE + x;
    int r = blockIdx.y * SMALL_TILE + y;
    if (r < rows && c < cols) {
        tile[y][x] = in[r * cols + c];
        if (traced) printf("trace load %d %d %d %d\n", x, y, r * cols + c, (int)(&tile[y][x] - &tile[0][0]));
    }
    __syncthreads();
    int out_r = blockIdx.x * SMALL_TILE + y;
    int out_c = blockIdx.y * SMALL_TILE + x;
    if (out_r < cols && out_c < rows) {
        out[out_r * rows + out_c] = tile[x][y];
        if (traced) printf("trace store %d %d %d %d\n", x, y, (int)(&tile[x][y] - &tile[0][0]), out_r * rows + out_c);
    }
}

// ---------------------------------------------------------------------------------------------
// Tiled matrix multiply (exercise 17) with 4 x 4 tiles. Block (1, 0) prints `trace a STEP X Y ROW
// COL` for each element of `a` that thread (X, Y) copies into a_tile at step STEP, `trace b ...`
// likewise, and `trace use_a STEP X Y R C` each time thread (X, Y) reads a_tile[R][C] (`use_b`:
// b_tile).
#define MATMUL_TILE 4

extern "C" __global__ void matmul_tiled_traced(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float a_tile[MATMUL_TILE][MATMUL_TILE];
    __shared__ float b_tile[MATMUL_TILE][MATMUL_TILE];
    int x = threadIdx.x, y = threadIdx.y;
    int row = blockIdx.y * MATMUL_TILE + y;
    int col = blockIdx.x * MATMUL_TILE + x;
    bool traced = blockIdx.x == 1 && blockIdx.y == 0;
    float sum = 0.0f;

    for (int step = 0; step < k; step += MATMUL_TILE) {
        int a_col = step + x;
        int b_row = step + y;
        a_tile[y][x] = row < m && a_col < k ? a[row * k + a_col] : 0.0f;
        b_tile[y][x] = b_row < k && col < n ? b[b_row * n + col] : 0.0f;
        if (traced) {
            printf("trace a %d %d %d %d %d\n", step / MATMUL_TILE, x, y, row, a_col);
            printf("trace b %d %d %d %d %d\n", step / MATMUL_TILE, x, y, b_row, col);
        }
        __syncthreads();
        for (int i = 0; i < MATMUL_TILE; ++i) {
            sum += a_tile[y][i] * b_tile[i][x];
            if (traced) {
                printf("trace use_a %d %d %d %d %d\n", step / MATMUL_TILE, x, y, y, i);
                printf("trace use_b %d %d %d %d %d\n", step / MATMUL_TILE, x, y, i, x);
            }
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        c[row * n + col] = sum;
    }
}

// ---------------------------------------------------------------------------------------------
// Reduction trees (exercise 19) over N values, one step of the tree per source line so that the
// simulator reports each step's wavefronts on a line of its own. Each active thread of block 0
// prints `trace STRIDE THREAD TO FROM`: it adds word FROM into word TO.
#define TRACE_STEP(stride, to, from)                                                             \
    if (blockIdx.x == 0) printf("trace %d %d %d %d\n", (stride), (int)threadIdx.x, (to), (from))

// Interleaved addressing: thread t adds sums[2st + s] into sums[2st].
#define INTERLEAVED_STEP(s)                                                                      \
    if (2 * (s) <= N) {                                                                          \
        int index = 2 * (s) * threadIdx.x;                                                       \
        if (index < N) {                                                                         \
            sums[index] += sums[index + (s)];                                                    \
            TRACE_STEP((s), index, index + (s));                                                 \
        }                                                                                        \
        __syncthreads();                                                                         \
    }

// Sequential addressing: thread t adds sums[t + s] into sums[t], s halving from N / 2.
#define SEQUENTIAL_STEP(s)                                                                       \
    if (2 * (s) <= N) {                                                                          \
        int t = threadIdx.x;                                                                     \
        if (t < (s)) {                                                                           \
            sums[t] += sums[t + (s)];                                                            \
            TRACE_STEP((s), t, t + (s));                                                         \
        }                                                                                        \
        __syncthreads();                                                                         \
    }

template <int N>
__device__ void reduce_interleaved_steps(const float* in, float* partial)
{
    __shared__ float sums[N];
    sums[threadIdx.x] = in[blockIdx.x * N + threadIdx.x];
    __syncthreads();
    INTERLEAVED_STEP(1);
    INTERLEAVED_STEP(2);
    INTERLEAVED_STEP(4);
    INTERLEAVED_STEP(8);
    INTERLEAVED_STEP(16);
    INTERLEAVED_STEP(32);
    INTERLEAVED_STEP(64);
    INTERLEAVED_STEP(128);
    if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

template <int N>
__device__ void reduce_sequential_steps(const float* in, float* partial)
{
    __shared__ float sums[N];
    sums[threadIdx.x] = in[blockIdx.x * N + threadIdx.x];
    __syncthreads();
    SEQUENTIAL_STEP(128);
    SEQUENTIAL_STEP(64);
    SEQUENTIAL_STEP(32);
    SEQUENTIAL_STEP(16);
    SEQUENTIAL_STEP(8);
    SEQUENTIAL_STEP(4);
    SEQUENTIAL_STEP(2);
    SEQUENTIAL_STEP(1);
    if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

// 64 values: the fewest for which a warp's 32 lanes reach past 32 words, into the same banks.
extern "C" __global__ void reduce_interleaved_64(const float* in, float* partial)
{
    reduce_interleaved_steps<64>(in, partial);
}

extern "C" __global__ void reduce_sequential_64(const float* in, float* partial)
{
    reduce_sequential_steps<64>(in, partial);
}

// Exercise 19's block of 256.
extern "C" __global__ void reduce_interleaved_256(const float* in, float* partial)
{
    reduce_interleaved_steps<256>(in, partial);
}

extern "C" __global__ void reduce_sequential_256(const float* in, float* partial)
{
    reduce_sequential_steps<256>(in, partial);
}
