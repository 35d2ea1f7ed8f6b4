// Streams, events and CUDA graphs (book/src/streams-and-graphs.md), timed with events:
// 1. 8 chunks of copy in, kernel, copy back, on one stream and on four, from pinned memory;
// 2. 1000 launches of a tiny kernel, one by one on a stream and as one captured graph.
// `streams_graphs chunks` runs part 1 alone (for a short Nsight Systems trace).
#include "check.h"
#include <chrono>
#include <string>

__global__ void work(float* x, int n, int steps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int s = 0; s < steps; ++s) v = v * 0.999f + 0.001f;
    x[i] = v;
}

__global__ void tiny(float* x) { x[threadIdx.x] += 1.0f; }

static float chunked(float* host, float* device, int n, int chunks, cudaStream_t* streams, int used)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    int per = n / chunks;
    size_t bytes = size_t(per) * sizeof(float);
    CHECK(cudaEventRecord(start, streams[0]));
    for (int s = 1; s < used; ++s) CHECK(cudaStreamWaitEvent(streams[s], start)); // all start together
// ANCHOR: chunks
    for (int c = 0; c < chunks; ++c) {
        cudaStream_t st = streams[c % used];
        float *h = host + size_t(c) * per, *d = device + size_t(c) * per;
        CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, st));
        work<<<(per + 255) / 256, 256, 0, st>>>(d, per, 64);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, st));
    }
// ANCHOR_END: chunks
    for (int s = 1; s < used; ++s) { // streams[0] waits for the others before the stop event
        cudaEvent_t done;
        CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        CHECK(cudaEventRecord(done, streams[s]));
        CHECK(cudaStreamWaitEvent(streams[0], done));
    }
    CHECK(cudaEventRecord(stop, streams[0]));
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
}

int main(int argc, char** argv)
{
    const int n = 1 << 26, chunks = 8; // 256 MiB in 8 chunks of 32 MiB
    float *host, *device;
    CHECK(cudaMallocHost(&host, size_t(n) * sizeof(float)));
    CHECK(cudaMalloc(&device, size_t(n) * sizeof(float)));
    for (int i = 0; i < n; ++i) host[i] = 1.0f;
    cudaStream_t streams[4];
    for (auto& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    chunked(host, device, n, chunks, streams, 4); // warm-up
    for (int used : {1, 4}) {
        float ms = chunked(host, device, n, chunks, streams, used);
        std::printf("256 MiB in %d chunks on %d stream(s): %.2f ms\n", chunks, used, ms);
    }
    if (argc > 1 && std::string(argv[1]) == "chunks") return 0;

    const int launches = 1000;
    float* small;
    CHECK(cudaMalloc(&small, 32 * sizeof(float)));
    cudaStream_t st = streams[0];
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int round = 0; round < 2; ++round) { // the first round warms up
        CHECK(cudaEventRecord(start, st));
        for (int k = 0; k < launches; ++k) tiny<<<1, 32, 0, st>>>(small);
        CHECK(cudaEventRecord(stop, st));
        CHECK(cudaEventSynchronize(stop));
    }
    float stream_ms;
    CHECK(cudaEventElapsedTime(&stream_ms, start, stop));

    // ANCHOR: graph
    auto t0 = std::chrono::steady_clock::now();
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < launches; ++k) tiny<<<1, 32, 0, st>>>(small);
    CHECK(cudaStreamEndCapture(st, &graph));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    // ANCHOR_END: graph
    auto t1 = std::chrono::steady_clock::now();
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    for (int round = 0; round < 2; ++round) {
        CHECK(cudaEventRecord(start, st));
        CHECK(cudaGraphLaunch(exec, st));
        CHECK(cudaEventRecord(stop, st));
        CHECK(cudaEventSynchronize(stop));
    }
    float graph_ms;
    CHECK(cudaEventElapsedTime(&graph_ms, start, stop));
    float check[32];
    CHECK(cudaMemcpy(check, small, sizeof check, cudaMemcpyDeviceToHost));
    std::printf("%d tiny kernels launched one by one: %.3f ms (%.2f us each)\n", launches, stream_ms,
                stream_ms * 1000 / launches);
    std::printf("the same %d as one graph (%zu nodes): %.3f ms (%.2f us each); capture and "
                "instantiate took %.2f ms once\n",
                launches, nodes, graph_ms, graph_ms * 1000 / launches,
                std::chrono::duration<double, std::milli>(t1 - t0).count());
    std::printf("x[0] = %.0f after %d launches in all\n", check[0], 4 * launches);
    return 0;
}
