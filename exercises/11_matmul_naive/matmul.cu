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

    // TODO: accumulate the dot product of the row of A and the column of B in a local
    // variable, then write it to C once.
}
// ANCHOR_END: kernel
