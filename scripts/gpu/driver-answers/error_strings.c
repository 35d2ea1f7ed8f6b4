/* Prints, for every CUresult NVIDIA's driver knows, its name and its description, tab-separated:
 * the table the simulated driver answers cuGetErrorName and cuGetErrorString from. */
#include <cuda.h>
#include <stdio.h>

int main(void) {
    for (unsigned code = 0; code < 1100; ++code) {
        const char *name = 0, *text = 0;
        if (cuGetErrorName((CUresult)code, &name) != CUDA_SUCCESS) continue;
        if (cuGetErrorString((CUresult)code, &text) != CUDA_SUCCESS) text = "";
        printf("%u\t%s\t%s\n", code, name, text);
    }
    return 0;
}
