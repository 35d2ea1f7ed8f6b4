// Two streams, each copying its half in from page-locked memory, running a kernel and copying
// back, as cuda-samples' simpleStreams does; the host waits with cudaStreamSynchronize. No
// stream is being captured into a graph (CuPy asks before every copy).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void increment(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

int main() {
    const int n = 1 << 12, half = n / 2;
    int *h, *d;
    cudaMallocHost(&h, n * sizeof(int));
    cudaMalloc(&d, n * sizeof(int));
    for (int i = 0; i < n; i++) h[i] = i;
    cudaStream_t streams[2];
    for (int s = 0; s < 2; s++) cudaStreamCreate(&streams[s]);
    cudaStreamCaptureStatus capture;
    cudaError_t asked = cudaStreamIsCapturing(streams[1], &capture);
    printf("capturing: %s, %d\n", cudaGetErrorName(asked), (int)capture);
    for (int s = 0; s < 2; s++) {
        int *hp = h + s * half, *dp = d + s * half;
        cudaMemcpyAsync(dp, hp, half * sizeof(int), cudaMemcpyHostToDevice, streams[s]);
        increment<<<half / 256, 256, 0, streams[s]>>>(dp, half);
        cudaMemcpyAsync(hp, dp, half * sizeof(int), cudaMemcpyDeviceToHost, streams[s]);
    }
    for (int s = 0; s < 2; s++) cudaStreamSynchronize(streams[s]);
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += h[i] != i + 1;
    for (int s = 0; s < 2; s++) cudaStreamDestroy(streams[s]);
    cudaFreeHost(h);
    cudaFree(d);
    printf("%d wrong\n%s\n", wrong, wrong ? "wrong" : "ok");
    return 0;
}
