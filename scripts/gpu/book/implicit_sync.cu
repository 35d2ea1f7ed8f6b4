// Which runtime calls make the host wait for work already queued on another stream: the book's
// "allocate first, then queue" (cpp-track.md, streams-and-graphs.md, device-memory.md) rests on
// it. A kernel that spins for SPIN_MS runs on a non-blocking stream; the host then makes one call
// and times how long the call took to return. A call that returns after about SPIN_MS waited for
// the kernel. Last, cudaEventElapsedTime on a stop event the GPU has not reached yet.
#include "check.h"
#include <chrono>

__global__ void spin(long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

static constexpr double SPIN_MS = 100.0;

struct Spinner {
    cudaStream_t stream;
    long long cycles;

    // Queues the spinning kernel, makes the call, and says how long the call took to return.
    template <typename Call> void time(const char* what, Call call) const
    {
        CHECK(cudaDeviceSynchronize());
        spin<<<1, 1, 0, stream>>>(cycles);
        CHECK(cudaGetLastError());
        auto start = std::chrono::steady_clock::now();
        cudaError_t err = call();
        std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
        CHECK(cudaStreamSynchronize(stream));
        std::printf("%-44s %-12s returned after %6.1f ms (the kernel runs %.0f ms)\n", what,
                    cudaGetErrorName(err), took.count(), SPIN_MS);
    }
};

int main()
{
    int khz;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    cudaStream_t stream, other;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    const Spinner spinner{stream, static_cast<long long>(SPIN_MS * khz)};

    // The context and the allocators' first-use costs, paid before anything is timed.
    void* warm;
    CHECK(cudaMalloc(&warm, 1 << 20));
    CHECK(cudaFree(warm));
    CHECK(cudaMallocHost(&warm, 1 << 20));
    CHECK(cudaFreeHost(warm));

    void* device = nullptr;
    void* host = nullptr;
    void* pooled = nullptr;
    spinner.time("cudaMalloc(1 MiB)", [&] { return cudaMalloc(&device, 1 << 20); });
    spinner.time("cudaFree(that 1 MiB)", [&] { return cudaFree(device); });
    spinner.time("cudaMallocHost(4 MiB)", [&] { return cudaMallocHost(&host, 4 << 20); });
    spinner.time("cudaFreeHost(those 4 MiB)", [&] { return cudaFreeHost(host); });
    spinner.time("cudaMallocAsync(1 MiB) on another stream",
                 [&] { return cudaMallocAsync(&pooled, 1 << 20, other); });
    spinner.time("cudaFreeAsync on another stream", [&] { return cudaFreeAsync(pooled, other); });

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, stream));
    spin<<<1, 1, 0, stream>>>(spinner.cycles);
    CHECK(cudaEventRecord(stop, stream));
    float ms = 0;
    cudaError_t early = cudaEventElapsedTime(&ms, start, stop);
    CHECK(cudaEventSynchronize(stop));
    cudaError_t late = cudaEventElapsedTime(&ms, start, stop);
    std::printf("cudaEventElapsedTime before the stop event: %s; after cudaEventSynchronize: %s, "
                "%.1f ms\n",
                cudaGetErrorName(early), cudaGetErrorName(late), ms);
    return 0;
}
