// Exercise 15: a 1D stencil with its halo in shared memory.
//
// A stencil computes each output from a window of neighbouring inputs. This one is a moving sum
// over a window of 2 * RADIUS + 1 elements:
//
//     out[i] = in[i - RADIUS] + ... + in[i] + ... + in[i + RADIUS]
//
// where elements outside the array count as 0.
//
// Every input element is needed by 2 * RADIUS + 1 threads. Rather than each thread reading its
// whole window from global memory, each block copies the stretch of `in` it needs into shared
// memory once, and its threads then read their windows from that fast on-chip copy. The stretch
// is the block's own BLOCK_SIZE elements plus RADIUS elements on each side: the halo, which
// belongs to the neighbouring blocks.
//
//     tile:  [ RADIUS left halo | BLOCK_SIZE elements of this block | RADIUS right halo ]
//
// The runner launches ceil(n / BLOCK_SIZE) blocks of BLOCK_SIZE threads.
//
// Check it with: runner check 15

#define BLOCK_SIZE 256
#define RADIUS 3

// ANCHOR: kernel
extern "C" __global__ void stencil_1d(const float* in, float* out, int n)
{
    __shared__ float tile[BLOCK_SIZE + 2 * RADIUS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Where this thread's element sits in the tile: after the left halo.
    int t = threadIdx.x + RADIUS;

    // TODO: copy this thread's element of `in` into the tile (0 past the end of the array).
    // Threads past the end still fill their slot: their neighbours' windows reach into it.
    tile[t] = i < n ? in[i] : 0.0f;

    // TODO: let the first RADIUS threads of the block also copy the halo: the RADIUS elements
    // just before the block's first element and the RADIUS just after its last (0 outside the
    // array).
    // Thread k (k < RADIUS) fetches the k-th element of each halo: the left halo ends just
    // before element blockIdx.x * BLOCK_SIZE, the right one starts just after the block's last.
    if (threadIdx.x < RADIUS) {
        int left = i - RADIUS;
        int right = i + BLOCK_SIZE;
        tile[threadIdx.x] = left >= 0 ? in[left] : 0.0f;
        tile[t + BLOCK_SIZE + RADIUS] = right < n ? in[right] : 0.0f;
    }

    // TODO: make sure the whole tile is written before any thread reads it.
    // The halo and most of each window were written by other threads, some in other warps.
    __syncthreads();

    // TODO: each thread that has an element adds up its window from the tile and writes out[i].
    // From here on, global memory sees one read per element (plus the halo) and one write.
    if (i < n) {
        float sum = 0.0f;
        for (int offset = -RADIUS; offset <= RADIUS; ++offset) {
            sum += tile[t + offset];
        }
        out[i] = sum;
    }
}
// ANCHOR_END: kernel
