// Host functions on a stream (cudaStreamAddCallback, cudaLaunchHostFunc), as cuda-samples'
// simpleCallback uses them: each runs after the stream's earlier work, so it sees the result a
// kernel wrote and an asynchronous copy brought back to page-locked memory.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(int *x, int value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = value + i;
}

struct Work {
    const int *host;
    int value, n, seen;
};

static int first_wrong(const Work *w) {
    for (int i = 0; i < w->n; i++)
        if (w->host[i] != w->value + i) return i;
    return -1;
}

static void CUDART_CB on_callback(cudaStream_t, cudaError_t status, void *data) {
    Work *w = (Work *)data;
    w->seen = status == cudaSuccess && first_wrong(w) < 0 ? 1 : -1;
}

static void CUDART_CB on_host_func(void *data) {
    Work *w = (Work *)data;
    w->seen = first_wrong(w) < 0 ? 2 : -2;
}

int main() {
    const int n = 1000;
    int *device, *host;
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaMalloc(&device, n * sizeof(int));
    cudaMallocHost(&host, n * sizeof(int));
    Work work = {host, 7, n, 0};
    fill<<<(n + 255) / 256, 256, 0, stream>>>(device, 7, n);
    cudaMemcpyAsync(host, device, n * sizeof(int), cudaMemcpyDeviceToHost, stream);
    cudaError_t added = cudaStreamAddCallback(stream, on_callback, &work, 0);
    printf("callback: %s, saw %d\n", cudaGetErrorName(added), work.seen);
    work.value = 40;
    fill<<<(n + 255) / 256, 256, 0, stream>>>(device, 40, n);
    cudaMemcpyAsync(host, device, n * sizeof(int), cudaMemcpyDeviceToHost, stream);
    cudaError_t launched = cudaLaunchHostFunc(stream, on_host_func, &work);
    cudaStreamSynchronize(stream);
    printf("host function: %s, saw %d\n", cudaGetErrorName(launched), work.seen);
    cudaError_t flags = cudaStreamAddCallback(stream, on_callback, &work, 1);
    printf("reserved flags: %s\n", cudaGetErrorName(flags));
    puts(added == cudaSuccess && launched == cudaSuccess && work.seen == 2 ? "ok" : "wrong");
    return 0;
}
