// The error-checking idiom the book teaches (book/src/runtime-api.md): every runtime call wrapped,
// so that a failure stops the program at the call that reported it, with its file and line.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err_ = (call);                                                   \
        if (err_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, \
                         #call, cudaGetErrorName(err_), cudaGetErrorString(err_));   \
            std::exit(1);                                                            \
        }                                                                            \
    } while (0)

// Reports without stopping, for the demonstrations that go on past an error.
static inline void report(const char* what, cudaError_t err)
{
    std::printf("%-44s -> %s\n", what, cudaGetErrorName(err));
}
