// Mistake: the round captured and instantiated again inside the loop: an instantiation per round costs more than the launches save
// Exercise cpp04: CUDA graphs. Capture a round of kernels once, and launch it every round.
//
// Each round of this program is three small kernels: smooth, gain, clip. Launched one by one,
// each costs the CPU a few microseconds to queue and the GPU a gap between kernels, and for
// kernels this small those costs are most of the round. A CUDA graph is a round recorded once:
// begin a capture on a stream, queue the round there as usual (nothing runs: the work is kept
// as the graph's nodes), end the capture, instantiate the graph (the costly step, done once),
// then launch the instantiated graph once per round, one call each time.
//
// While a stream is being captured only work queued on it may happen: a synchronous call
// (cudaMemcpy, cudaMemset, cudaDeviceSynchronize) waits for the default stream, which a capture
// forbids, and it ends the capture with an error.
//
// `runner check cpp04` builds this file with nvcc, gives it each case (the signal and the
// number of rounds through hostkit.h), checks the signal it hands back, and reads from the
// driver's record how the kernels were launched: as a graph's nodes or one by one, and how
// many times a graph was instantiated.
#include <cstdio>
#include <cstdlib>
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

const int THREADS = 256;
const float GAIN = 1.5f;
const float LIMIT = 1.0f;

// Each element becomes the average of itself and its neighbours (an end counts itself for the
// missing one).
__global__ void smooth(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float left = in[i > 0 ? i - 1 : i];
        float right = in[i < n - 1 ? i + 1 : i];
        out[i] = (left + in[i] + right) / 3.0f;
    }
}

__global__ void gain(float *x, float g, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = x[i] * g;
    }
}

__global__ void clip(const float *in, float *out, float limit, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = fminf(fmaxf(in[i], -limit), limit);
    }
}

// ANCHOR: round
// One round, queued on `stream`: signal -> scratch -> signal. The same buffers every round, so
// a round recorded once is right for every round. Given.
void queue_round(cudaStream_t stream, float *signal, float *scratch, int n) {
    int blocks = (n + THREADS - 1) / THREADS;
    smooth<<<blocks, THREADS, 0, stream>>>(signal, scratch, n);
    gain<<<blocks, THREADS, 0, stream>>>(scratch, GAIN, n);
    clip<<<blocks, THREADS, 0, stream>>>(scratch, signal, LIMIT, n);
    CHECK(cudaGetLastError());
}
// ANCHOR_END: round

int main() {
    hostkit::Task task = hostkit::Task::open();
    int rounds = (int)task.param("rounds");
    std::vector<float> signal = task.read<float>("signal");
    int n = (int)signal.size();
    size_t bytes = n * sizeof(float);
    std::printf("%d rounds on %d elements\n", rounds, n);
    float *signal_dev = nullptr, *scratch_dev = nullptr;
    CHECK(cudaMalloc(&signal_dev, bytes));
    CHECK(cudaMalloc(&scratch_dev, bytes));
    CHECK(cudaMemcpy(signal_dev, signal.data(), bytes, cudaMemcpyHostToDevice));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t instance = nullptr;

    // ANCHOR: capture
    // TODO 1: record one round into `graph`: begin a capture on `stream`
    // (cudaStreamBeginCapture, cudaStreamCaptureModeGlobal), queue a round on it (queue_round),
    // end the capture (cudaStreamEndCapture). Then instantiate the graph into `instance`
    // (cudaGraphInstantiate), once.
    // ANCHOR_END: capture

    // ANCHOR: replay
    for (int r = 0; r < rounds; r++) {
        // TODO 2: launch the instantiated graph on `stream` (cudaGraphLaunch): one round.
        CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        queue_round(stream, signal_dev, scratch_dev, n);
        CHECK(cudaStreamEndCapture(stream, &graph));
        if (instance) CHECK(cudaGraphExecDestroy(instance));
        CHECK(cudaGraphInstantiate(&instance, graph, 0));
        CHECK(cudaGraphLaunch(instance, stream));
    }
    // TODO 3: wait for the last round (cudaStreamSynchronize).
    CHECK(cudaStreamSynchronize(stream));
    // ANCHOR_END: replay

    CHECK(cudaMemcpy(signal.data(), signal_dev, bytes, cudaMemcpyDeviceToHost));
    // TODO 4: destroy the instantiated graph and the graph (cudaGraphExecDestroy,
    // cudaGraphDestroy).
    CHECK(cudaGraphExecDestroy(instance));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(signal_dev));
    CHECK(cudaFree(scratch_dev));
    task.write("signal", signal);
    return 0;
}
