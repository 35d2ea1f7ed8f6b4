// Stream capture and CUDA graphs: a copy in, two kernels and a copy back captured on a stream,
// the graph replayed three times (each replay adds one to every element twice, from the host's
// input copied in again), a synchronous copy refused during a capture, which invalidates it.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add_one(int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += 1;
}

int main() {
    const int n = 1000;
    int host[n], back[n];
    for (int i = 0; i < n; i++) host[i] = i;
    int *d;
    cudaMalloc(&d, n * sizeof(int));
    cudaStream_t s;
    cudaStreamCreate(&s);

    cudaGraph_t graph;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaStreamCaptureStatus status;
    cudaStreamIsCapturing(s, &status);
    cudaMemcpyAsync(d, host, n * sizeof(int), cudaMemcpyHostToDevice, s);
    add_one<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    add_one<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    cudaMemcpyAsync(back, d, n * sizeof(int), cudaMemcpyDeviceToHost, s);
    printf("capturing %d, %s\n", status == cudaStreamCaptureStatusActive,
           cudaGetErrorName(cudaStreamEndCapture(s, &graph)));
    size_t nodes = 0;
    cudaGraphGetNodes(graph, nullptr, &nodes);
    cudaGraphExec_t exec;
    cudaGraphInstantiate(&exec, graph, 0);
    back[5] = -1;
    printf("nodes %zu, before launch back[5] %d\n", nodes, back[5]);
    for (int r = 0; r < 3; r++) {
        host[5] = 100 * r;
        cudaGraphLaunch(exec, s);
        cudaStreamSynchronize(s);
        printf("replay %d: back[5] %d back[999] %d\n", r, back[5], back[999]);
    }

    cudaGraph_t refused;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaError_t sync_copy = cudaMemcpy(d, host, sizeof(int), cudaMemcpyHostToDevice);
    cudaError_t ended = cudaStreamEndCapture(s, &refused);
    printf("%s, %s\n", cudaGetErrorName(sync_copy), cudaGetErrorName(ended));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaGetLastError();
    printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
