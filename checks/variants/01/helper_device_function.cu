// The index in a helper __device__ function, with a 64-bit index.
__device__ __forceinline__ long long global_thread_index()
{
    return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

extern "C" __global__ void write_index(int* out, int n)
{
    long long i = global_thread_index();
    if (i < n) {
        *(out + i) = static_cast<int>(i);
    }
}
