// Exercise 11: matrix multiply, one thread per element of the result.
//
// C = A * B, where A has m rows and k columns, B has k rows and n columns, and C has m rows and
// n columns; all three are stored row by row (element (r, c) of A is a[r * k + c]). Element
// (row, col) of C is the dot product of row `row` of A with column `col` of B:
//
//     C[row][col] = sum over i from 0 to k - 1 of A[row][i] * B[i][col]
//
// The runner launches a 2D grid of 16 x 16 blocks covering C: x over its columns, y over its
// rows, rounded up to whole blocks. Every thread computes one element of C.
//
// Check it with: runner check 11

// ANCHOR: kernel
extern "C" __global__ void matmul(const float* a, const float* b, float* c, int m, int n, int k)
{
    // TODO: compute this thread's row and column of C, and return if they are outside it.
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;

    // TODO: accumulate the dot product of the row of A and the column of B in a local
    // variable, then write it to C once.
    // The sum stays in a register; only the finished element goes to global memory. Along the
    // loop a thread walks A's row (neighbouring addresses) and B's column (n floats apart);
    // neighbouring threads of a warp share A's element and read neighbouring elements of B.
    // Every element of A and B is read by many threads: exercise 17 reuses them from shared
    // memory instead.
    float sum = 0.0f;
    for (int i = 0; i < m; ++i) {
        sum += a[row * k + i] * b[i * n + col];
    }
    c[row * n + col] = sum;
}
// ANCHOR_END: kernel
