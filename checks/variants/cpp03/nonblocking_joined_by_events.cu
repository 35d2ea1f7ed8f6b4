// Variant: non-blocking streams (cudaStreamCreateWithFlags) that wait for a start event on a main
// stream and are joined back to it by an event each (cudaStreamWaitEvent); only the main stream
// is synchronised before the pinned output is read
// Exercise cpp03: streams and events. Hide the copies behind the kernels, and time it.
//
// The GPU has an engine that copies to the device, one that copies back, and the SMs: three
// things that can run at once. A program that copies everything in, computes, then copies
// everything back uses one at a time. Cut the signal into `chunks`; give each chunk its own
// copy in, kernel and copy back on a stream (a few streams, taken in turn), and while one chunk
// computes the next is already being copied in and the one before copied back.
//
// Copies only run beside other work from pinned (page-locked) host memory: from malloc'd or
// std::vector memory the driver first copies into a buffer of its own while your program
// waits. And nothing queued after an allocation runs beside what was queued before it:
// allocate first, then queue. Events (cudaEventRecord on a stream) mark points in the GPU's
// work; cudaEventElapsedTime gives the milliseconds between two of them, as the GPU saw them.
//
// `runner check cpp03` reads the timeline of copies and kernels from the driver's record and
// measures how much of the copy time ran beside other work.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "hostkit.h"

#define CHECK(call)                                                                    \
    do {                                                                               \
        cudaError_t err_ = (call);                                                     \
        if (err_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                         cudaGetErrorString(err_));                                    \
            std::exit(1);                                                              \
        }                                                                              \
    } while (0)

// How many streams the chunks take turns on.
const int STREAMS = 4;

// rounds steps of x = x / 2 + 1 / (1 + x^2) on each element: a little arithmetic per element,
// so that copying the data costs more than computing on it. Given.
__global__ void transform(const float *in, float *out, int n, int rounds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        for (int r = 0; r < rounds; r++) {
            x = x * 0.5f + 1.0f / (x * x + 1.0f);
        }
        out[i] = x;
    }
}

int main() {
    hostkit::Task task = hostkit::Task::open();
    int chunks = (int)task.param("chunks");
    int rounds = (int)task.param("rounds");
    std::vector<float> signal = task.read<float>("signal");
    int n = (int)signal.size();
    int chunk = (n + chunks - 1) / chunks;
    std::printf("%d elements in %d chunks of up to %d\n", n, chunks, chunk);
    std::vector<float> result(n);
    cudaStream_t streams[STREAMS];
    float *pinned_in = nullptr, *pinned_out = nullptr, *device_in = nullptr, *device_out = nullptr;
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    // ANCHOR: allocate
    // TODO 1: make STREAMS streams (cudaStreamCreate), and allocate everything before queuing
    // any work (an allocation waits for all the work queued before it): pinned host memory for
    // the whole input and output (cudaMallocHost), the input filled from signal, and the
    // device input and output (cudaMalloc).
    cudaStream_t main_stream;
    CHECK(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));
    cudaEvent_t done[STREAMS];
    for (int s = 0; s < STREAMS; s++) {
        CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
    }
    CHECK(cudaMallocHost(&pinned_in, n * sizeof(float)));
    CHECK(cudaMallocHost(&pinned_out, n * sizeof(float)));
    std::memcpy(pinned_in, signal.data(), n * sizeof(float));
    CHECK(cudaMalloc(&device_in, n * sizeof(float)));
    CHECK(cudaMalloc(&device_out, n * sizeof(float)));
    // ANCHOR_END: allocate

    CHECK(cudaEventRecord(start, main_stream));
    for (int s = 0; s < STREAMS; s++) CHECK(cudaStreamWaitEvent(streams[s], start, 0));
    // ANCHOR: queue
    // TODO 2: queue each chunk's work on stream c % STREAMS: copy its part of pinned_in to
    // device_in (cudaMemcpyAsync), launch transform on that part, copy the part of device_out
    // back into pinned_out. The last chunk may be shorter (or empty). Nothing waits here.
    for (int c = 0; c < chunks; c++) {
        int first = c * chunk;
        int len = first < n ? (n - first < chunk ? n - first : chunk) : 0;
        if (len == 0) continue;
        cudaStream_t stream = streams[c % STREAMS];
        size_t bytes = len * sizeof(float);
        CHECK(cudaMemcpyAsync(device_in + first, pinned_in + first, bytes,
                              cudaMemcpyHostToDevice, stream));
        transform<<<(len + 255) / 256, 256, 0, stream>>>(device_in + first, device_out + first,
                                                         len, rounds);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(pinned_out + first, device_out + first, bytes,
                              cudaMemcpyDeviceToHost, stream));
    }
    // ANCHOR_END: queue
    // Each stream's work joined back to the main stream, which alone is waited for.
    for (int s = 0; s < STREAMS; s++) {
        CHECK(cudaEventRecord(done[s], streams[s]));
        CHECK(cudaStreamWaitEvent(main_stream, done[s], 0));
    }
    CHECK(cudaEventRecord(stop, main_stream));

    // TODO 3: wait for all of it (cudaDeviceSynchronize), print the milliseconds between the
    // two events (cudaEventElapsedTime), and copy pinned_out into result.
    CHECK(cudaStreamSynchronize(main_stream));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("copies and kernels took %.3f ms on the GPU\n", ms);
    std::memcpy(result.data(), pinned_out, n * sizeof(float));

    // TODO 4: free what you allocated (cudaFreeHost, cudaFree) and destroy the streams.
    CHECK(cudaFreeHost(pinned_in));
    CHECK(cudaFreeHost(pinned_out));
    CHECK(cudaFree(device_in));
    CHECK(cudaFree(device_out));
    for (int s = 0; s < STREAMS; s++) {
        CHECK(cudaStreamDestroy(streams[s]));
        CHECK(cudaEventDestroy(done[s]));
    }
    CHECK(cudaStreamDestroy(main_stream));

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    task.write("signal", result);
    return 0;
}
