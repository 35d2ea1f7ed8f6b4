/* What NVIDIA's driver answers for copies and memsets of zero bytes, with null or real pointers
 * (numba-cuda copies a 0-sized array with a null device pointer). */
#include <cuda.h>
#include <stdio.h>

int main(void) {
    CUdevice dev; CUcontext ctx; CUstream s;
    cuInit(0); cuDeviceGet(&dev, 0); cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
    cuStreamCreate(&s, 0);
    char host[16];
    CUdeviceptr d; cuMemAlloc(&d, 16);
    CUdeviceptr zero = 0;
    printf("cuMemAlloc 0 bytes: %d\n", cuMemAlloc(&zero, 0));
    printf("HtoD null dst null src 0: %d\n", cuMemcpyHtoD(0, NULL, 0));
    printf("HtoD null dst host src 0: %d\n", cuMemcpyHtoD(0, host, 0));
    printf("HtoDAsync null dst host src 0: %d\n", cuMemcpyHtoDAsync(0, host, 0, s));
    printf("DtoH host dst null src 0: %d\n", cuMemcpyDtoH(host, 0, 0));
    printf("DtoHAsync null dst null src 0: %d\n", cuMemcpyDtoHAsync(NULL, 0, 0, s));
    printf("DtoD null null 0: %d\n", cuMemcpyDtoD(0, 0, 0));
    printf("DtoD null null 0 async: %d\n", cuMemcpyDtoDAsync(0, 0, 0, s));
    printf("cuMemcpy null null 0: %d\n", cuMemcpy(0, 0, 0));
    printf("memsetD8 null 0: %d\n", cuMemsetD8(0, 0, 0));
    printf("memsetD32Async null 0: %d\n", cuMemsetD32Async(0, 0, 0, s));
    printf("HtoD real dst null src 0: %d\n", cuMemcpyHtoD(d, NULL, 0));
    printf("HtoD freed-looking dst 0: %d\n", cuMemcpyHtoD(d + 4096, host, 0));
    printf("sync: %d\n", cuStreamSynchronize(s));
    return 0;
}
