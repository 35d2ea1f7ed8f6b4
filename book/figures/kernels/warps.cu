// Kernels behind the warps chapter's figures. book/figures/warps.py runs each one in the simulator
// and draws what its lanes print: `trace ...` lines give the active-lane mask of each branch
// (`__activemask()`), or the value each lane holds after each step of a shuffle loop. The lines
// marked `// FIGURE ...` are those whose warp instructions the simulator counts for the caption
// (each kernel is run on its own, so a line shared by two kernels counts for the one that ran).

// One value per lane for the reduction: the first 32 decimal digits of pi.
__constant__ int digits[32] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3,
                               2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5};

#define FULL_MASK 0xffffffffu
#define MASK(step) \
    printf("trace %s %d %d %x\n", step, (int)(threadIdx.x / 32), (int)(threadIdx.x % 32), __activemask())

// An if/else whose sides each do some work (a loop of 8 steps), so that what a warp issues for
// each side shows in the counts; every lane prints its active mask before, in and after it.
__device__ void branch(bool take_if, float* out)
{
    float v = out[threadIdx.x];
    MASK("before");
    if (take_if) {
        for (int k = 0; k < 8; ++k) v = v * 2.0f + 1.0f; // FIGURE if
        MASK("if");
    } else {
        for (int k = 0; k < 8; ++k) v = v * 0.5f - 1.0f; // FIGURE else
        MASK("else");
    }
    MASK("after");
    out[threadIdx.x] = v;
}

// The lanes of one warp disagree: even lanes take the if side, odd lanes the else side.
extern "C" __global__ void divergent(float* out)
{
    int lane = threadIdx.x % 32;
    branch(lane % 2 == 0, out);
}

// The condition is the same for the 32 lanes of each warp: warp 0 takes the if side, warp 1 the
// else side, and neither diverges.
extern "C" __global__ void uniform(float* out)
{
    branch(threadIdx.x / 32 == 0, out);
}

// A warp's sum with __shfl_down_sync, as in exercise 20: each lane prints its value before the
// loop (offset 0) and after the step with each offset.
extern "C" __global__ void shuffle_sum(int* out)
{
    int lane = threadIdx.x % 32;
    int value = digits[lane];
    printf("trace 0 %d %d\n", lane, value);
    for (int offset = 16; offset > 0; offset /= 2) {
        value += __shfl_down_sync(FULL_MASK, value, offset); // FIGURE sum
        printf("trace %d %d %d\n", offset, lane, value);
    }
    out[lane] = value;
}

// A warp's inclusive scan with __shfl_up_sync, as in exercise 21, on a 1 in every lane, so that
// the value a lane holds is the number of lanes its sum covers.
extern "C" __global__ void shuffle_scan(int* out)
{
    int lane = threadIdx.x % 32;
    int value = 1;
    printf("trace 0 %d %d\n", lane, value);
    for (int offset = 1; offset < 32; offset *= 2) {
        int below = __shfl_up_sync(FULL_MASK, value, offset); // FIGURE scan
        if (lane >= offset) {
            value += below;
        }
        printf("trace %d %d %d\n", offset, lane, value);
    }
    out[lane] = value;
}

// The same scan on the 8 lanes of a block of 8 threads (`width` 8), on the first 8 digits of pi.
extern "C" __global__ void shuffle_scan_8(int* out)
{
    int lane = threadIdx.x % 8;
    int value = digits[lane];
    printf("trace 0 %d %d\n", lane, value);
    for (int offset = 1; offset < 8; offset *= 2) {
        int below = __shfl_up_sync(0xffu, value, offset, 8); // FIGURE scan8
        if (lane >= offset) {
            value += below;
        }
        printf("trace %d %d %d\n", offset, lane, value);
    }
    out[lane] = value;
}
