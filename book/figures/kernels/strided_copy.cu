// The kernel behind the coalescing chapter's table of bandwidth against stride, measured on a GPU
// by book/figures/measure_strided.py. Lane k of a warp reads element k * stride: the load's
// sectors per request grow with the stride (4, 8, 16, then 32 from stride 8 on), while the store
// stays coalesced. The useful work is the same for every stride: n floats read, n written.
extern "C" __global__ void strided_copy(const float* in, float* out, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[(long long)i * stride];
    }
}
