// Tuned reference for exercise 17, for `runner bench` and the performance chapter: a
// register-tiled matrix multiply. The teaching solution does two shared-memory loads per
// multiply-add, so the shared-memory pipe, not the FMA units, sets its speed. Here each block of
// 16 x 16 threads computes a 128 x 128 tile of C, and each thread an 8 x 8 patch of it, kept in
// registers: for every step along k a thread loads 8 values of A and 8 of B from shared memory
// and does 64 multiply-adds with them, 4 per load instead of half of one.
//
// A thread's 8 rows are two groups of 4, 64 rows apart (and its columns likewise), so that the
// float4 loads of 8 neighbouring threads read 128 consecutive bytes: no bank conflicts.

#define BM 128 // rows of C per block
#define BN 128 // columns of C per block
#define BK 8   // steps along k per tile
#define THREADS 256
#define HALF 64 // the two groups of 4 rows (or columns) of a thread start this far apart

extern "C" __constant__ int tuned_items_x = 8;
extern "C" __constant__ int tuned_items_y = 8;

extern "C" __global__ void __launch_bounds__(THREADS)
matmul_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n, int k)
{
    // A's tile is stored transposed (k-major), so a thread's 8 rows are contiguous; the padding
    // of 4 keeps the transposing stores free of bank conflicts and rows 16-byte aligned.
    __shared__ __align__(16) float a_tile[BK][BM + 4];
    __shared__ __align__(16) float b_tile[BK][BN];

    int tid = threadIdx.y * 16 + threadIdx.x;
    int block_row = blockIdx.y * BM;
    int block_col = blockIdx.x * BN;
    int row0 = threadIdx.y * 4; // this thread's rows: row0 + {0..3} and row0 + HALF + {0..3}
    int col0 = threadIdx.x * 4; // and columns likewise

    float acc[8][8] = {{0.0f}};

    for (int step = 0; step < k; step += BK) {
        // Each thread brings in 4 elements of A's tile and 4 of B's, zero outside the matrices.
#pragma unroll
        for (int p = 0; p < BM * BK / THREADS; ++p) {
            int e = tid + p * THREADS;
            int r = e / BK, kk = e % BK;
            int gr = block_row + r, gk = step + kk;
            a_tile[kk][r] = gr < m && gk < k ? a[(size_t)gr * k + gk] : 0.0f;
        }
#pragma unroll
        for (int p = 0; p < BK * BN / THREADS; ++p) {
            int e = tid + p * THREADS;
            int kk = e / BN, cc = e % BN;
            int gk = step + kk, gc = block_col + cc;
            b_tile[kk][cc] = gk < k && gc < n ? b[(size_t)gk * n + gc] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float4 a_lo = *reinterpret_cast<const float4*>(&a_tile[kk][row0]);
            float4 a_hi = *reinterpret_cast<const float4*>(&a_tile[kk][row0 + HALF]);
            float4 b_lo = *reinterpret_cast<const float4*>(&b_tile[kk][col0]);
            float4 b_hi = *reinterpret_cast<const float4*>(&b_tile[kk][col0 + HALF]);
            float av[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            float bv[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (int i = 0; i < 8; ++i) {
#pragma unroll
                for (int j = 0; j < 8; ++j) {
                    acc[i][j] += av[i] * bv[j];
                }
            }
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        int gr = block_row + row0 + (i < 4 ? i : HALF + i - 4);
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            int gc = block_col + col0 + (j < 4 ? j : HALF + j - 4);
            if (gr < m && gc < n) {
                c[(size_t)gr * n + gc] = acc[i][j];
            }
        }
    }
}
