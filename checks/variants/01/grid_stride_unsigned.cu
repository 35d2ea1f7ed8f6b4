// A grid-stride loop with unsigned indices, where one thread per element would do.
extern "C" __global__ void write_index(int* out, int n)
{
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)n;
         i += blockDim.x * gridDim.x) {
        out[i] = (int)i;
    }
}
