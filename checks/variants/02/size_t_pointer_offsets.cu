// A 64-bit index and pointer arithmetic instead of subscripts.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) {
        float x = *(a + i);
        float y = *(b + i);
        *(c + i) = x + y;
    }
}
