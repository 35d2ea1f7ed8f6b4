// Kernels behind the coalescing chapter's figures. book/figures/generate.py runs each one in the
// simulator with one warp (`--grid 1 --block 32`) and draws, for the line marked `// FIGURE`,
// which 32-byte sectors the warp's 32 lanes touch, with the simulator's measured sectors per request.
//
// TRACE only tells generate.py which bytes each lane of warp 0 touched, so that it can draw them;
// the figures in the caption are those the simulator measured on the FIGURE line alone.
#define TRACE(base, address)                                                                     \
    do {                                                                                         \
        if (blockIdx.x == 0 && threadIdx.x < 32)                                                 \
            printf("trace %d %d\n", (int)threadIdx.x,                                            \
                   (int)((const char*)(address) - (const char*)(base)));                         \
    } while (0)

// Lane k reads element k: 32 lanes x 4 bytes = 128 contiguous bytes, 4 sectors.
extern "C" __global__ void coalesced(const float* in, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i]; // FIGURE
    TRACE(in, &in[i]);
    out[i] = v;
}

// The same 128 bytes shifted by one element: they straddle 5 sectors instead of 4.
extern "C" __global__ void offset(const float* in, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i + 1]; // FIGURE
    TRACE(in, &in[i + 1]);
    out[i] = v;
}

// Lane k reads element k * stride: the warp's loads spread over stride times as many sectors.
extern "C" __global__ void strided(const float* in, float* out, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i * stride]; // FIGURE
    TRACE(in, &in[i * stride]);
    out[i] = v;
}

// One thread per row of a row-major matrix (row sums, exercise 13): at each step the 32 lanes read
// one column, 32 rows apart, so every lane needs a sector of its own.
extern "C" __global__ void row_per_thread(const float* a, float* sums, int width)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (int col = 0; col < width; ++col) {
        sum += a[row * width + col]; // FIGURE
        if (col == 0) TRACE(a, &a[row * width + col]);
    }
    sums[row] = sum;
}

// One thread per column (column sums): at each step the 32 lanes read 32 neighbours in one row.
extern "C" __global__ void column_per_thread(const float* a, float* sums, int height, int width)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (int row = 0; row < height; ++row) {
        sum += a[row * width + col]; // FIGURE
        if (row == 0) TRACE(a, &a[row * width + col]);
    }
    sums[col] = sum;
}

// An array of structs (exercise 14's particles, 32 bytes each): the lanes' x fields are 32 bytes
// apart, so every lane needs a sector of its own, and the other 28 bytes of it come along unused.
struct Particle {
    float x, y, z;
    float vx, vy, vz;
    float mass;
    float charge;
};

extern "C" __global__ void array_of_structs(const Particle* p, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = p[i].x; // FIGURE
    TRACE(p, &p[i].x);
    out[i] = x;
}

// A struct of arrays: all x values side by side, so the same read is 4 sectors again.
extern "C" __global__ void struct_of_arrays(const float* xs, const float* ys, const float* zs, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = xs[i]; // FIGURE
    TRACE(xs, &xs[i]);
    out[i] = x;
}
