// Variant of cpp04: the capture and instantiation in a helper that returns the cudaGraphExec_t, the rounds launched on the legacy default stream (stream 0) after capturing on a created one, the end of the last round waited for with an event (cudaEventRecord + cudaEventSynchronize)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
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

void queue_round(cudaStream_t stream, float *signal, float *scratch, int n) {
    int blocks = (n + THREADS - 1) / THREADS;
    smooth<<<blocks, THREADS, 0, stream>>>(signal, scratch, n);
    gain<<<blocks, THREADS, 0, stream>>>(scratch, GAIN, n);
    clip<<<blocks, THREADS, 0, stream>>>(scratch, signal, LIMIT, n);
    CHECK(cudaGetLastError());
}

static cudaGraphExec_t record_round(float *signal_dev, float *scratch_dev, int n) {
    cudaStream_t capture;
    CHECK(cudaStreamCreate(&capture));
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(capture, cudaStreamCaptureModeGlobal));
    queue_round(capture, signal_dev, scratch_dev, n);
    CHECK(cudaStreamEndCapture(capture, &graph));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(capture));
    return exec;
}

int main() {
    hostkit::Task task = hostkit::Task::open();
    const int rounds = static_cast<int>(task.param("rounds"));
    std::vector<float> signal = task.read<float>("signal");
    const int n = static_cast<int>(signal.size());
    const size_t bytes = n * sizeof(float);
    float *signal_dev, *scratch_dev;
    CHECK(cudaMalloc(&signal_dev, bytes));
    CHECK(cudaMalloc(&scratch_dev, bytes));
    CHECK(cudaMemcpy(signal_dev, signal.data(), bytes, cudaMemcpyHostToDevice));
    cudaGraphExec_t exec = record_round(signal_dev, scratch_dev, n);
    cudaEvent_t done;
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    for (int r = 0; r < rounds; r++) {
        CHECK(cudaGraphLaunch(exec, 0));
    }
    CHECK(cudaEventRecord(done, 0));
    CHECK(cudaEventSynchronize(done));
    CHECK(cudaMemcpy(signal.data(), signal_dev, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaEventDestroy(done));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaFree(signal_dev));
    CHECK(cudaFree(scratch_dev));
    task.write("signal", signal);
    return 0;
}
