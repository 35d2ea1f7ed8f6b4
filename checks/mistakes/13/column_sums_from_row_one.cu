// Exercise 13: row sums and column sums, with coalesced memory access.
//
// The matrix has `rows` rows and `cols` columns, stored row by row: element (r, c) is at
// matrix[r * cols + c]. Write two kernels: one that sums each column, one that sums each row.
//
// Memory is read in 32-byte sectors. When the 32 threads of a warp load neighbouring floats,
// the whole warp needs 4 sectors (128 bytes); when they load floats far apart, it needs up to
// 32, and most of each sector is fetched for nothing. Accesses of the first kind are called
// coalesced. The simulator counts sectors per request (a request is one load or store by a
// warp), as Nsight Compute does on a GPU, and this exercise asks for at most 4 in `row_sums`.
//
// Check it with: runner check 13

// ANCHOR: columns
// One thread per column: the runner launches at least `cols` threads, in blocks of 256.
extern "C" __global__ void column_sums(const float* matrix, float* sums, int rows, int cols)
{
    // TODO: each thread sums its own column, from row 0 to the last, and writes the sum to
    // sums[its column]. Think about which addresses the 32 threads of a warp read together.
    // At each step of the loop the warp's threads read one row at neighbouring columns:
    // neighbouring addresses, so every load is coalesced without any effort.
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols) return;
    float sum = 0.0f;
    for (int r = 1; r < rows; ++r) {
        sum += matrix[r * cols + col];
    }
    sums[col] = sum;
}
// ANCHOR_END: columns

// ANCHOR: rows
// The runner launches 32 threads for every row (rows * 32 threads in all, in blocks of 256), so
// that several threads can share the work of one row, and sets every sum to 0 before the launch.
extern "C" __global__ void row_sums(const float* matrix, float* sums, int rows, int cols)
{
    // TODO: make sums[r] the sum of row r, for every row. Start with whatever is simplest and
    // right; then read the sectors per request that the runner reports, and change which
    // thread reads which element until a warp's loads are coalesced. Threads that share a row
    // can each add their part of it to sums[r] with atomicAdd (exercise 07).
    // One thread per row would be simple and right, but at each step the warp's 32 threads
    // would read 32 different rows, `cols` floats apart: 32 sectors per request. Instead the
    // 32 threads of a warp take one row together: thread `lane` reads columns lane, lane + 32,
    // lane + 64, ..., so every load of the warp is 32 neighbouring floats.
    int thread = blockIdx.x * blockDim.x + threadIdx.x;
    int row = thread / 32;
    int lane = thread % 32;
    if (row >= rows) return;
    float partial = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        partial += matrix[row * cols + c];
    }
    // 32 partial sums per row meet in sums[row]; the chapter "Warps" adds them up with shuffles
    // inside the warp instead, and a single store.
    atomicAdd(&sums[row], partial);
}
// ANCHOR_END: rows
