// Variant of cpp04: a non-blocking stream, a relaxed-mode capture, cudaGraphInstantiateWithFlags, the graph destroyed right after instantiation (the instance keeps its own copy), the copy back asynchronous on the stream
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

int main() {
    hostkit::Task task = hostkit::Task::open();
    int rounds = (int)task.param("rounds");
    std::vector<float> signal = task.read<float>("signal");
    int n = (int)signal.size();
    size_t bytes = n * sizeof(float);
    float *signal_dev, *scratch_dev;
    CHECK(cudaMalloc(&signal_dev, bytes));
    CHECK(cudaMalloc(&scratch_dev, bytes));
    CHECK(cudaMemcpy(signal_dev, signal.data(), bytes, cudaMemcpyHostToDevice));
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
    queue_round(stream, signal_dev, scratch_dev, n);
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiateWithFlags(&exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));
    for (int r = 0; r < rounds; ++r) CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaMemcpyAsync(signal.data(), signal_dev, bytes, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(scratch_dev));
    CHECK(cudaFree(signal_dev));
    task.write("signal", signal);
    return 0;
}
