// What NVIDIA's driver answers to the calls the simulated driver answers from the documentation
// alone (driver/README.md): a module with a duplicate .entry, cuMemHostRegister on a range that
// wraps around the address space, cuMemFreeHost on registered memory, a context destroyed while
// current to another thread, cuMemFree(0), and a misaligned access's error code.
// Built and run on the device machine by answers.sh; prints one line per call.
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const char *name(CUresult r) {
    const char *n = NULL;
    cuGetErrorName(r, &n);
    return n ? n : "?";
}

static const char *DUPLICATE =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry k() { ret; }\n"
    ".visible .entry k() { ret; }\n";

static const char *MISALIGNED =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry m(.param .u64 p) {\n"
    "  .reg .b64 %rd<3>; .reg .b32 %r<2>;\n"
    "  ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, 7; st.global.u32 [%rd2+2], %r1; ret; }\n";

static CUcontext shared_ctx;
static void *other_thread(void *arg) {
    (void)arg;
    printf("cuCtxSetCurrent in another thread: %s\n", name(cuCtxSetCurrent(shared_ctx)));
    return NULL;
}

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0);
    CUdevice dev;
    CUcontext ctx;
    cuInit(0);
    cuDeviceGet(&dev, 0);
    cuCtxCreate(&ctx, NULL, 0, dev);
    CUmodule mod;
    printf("duplicate .entry: %s\n", name(cuModuleLoadData(&mod, DUPLICATE)));
    printf("cuMemFree(0): %s\n", name(cuMemFree(0)));
    char *p = malloc(8192);
    printf("cuMemHostRegister wrapping: %s\n",
           name(cuMemHostRegister((void *)(uintptr_t)(UINTPTR_MAX - 4095), 8192, 0)));
    printf("cuMemHostRegister plain: %s\n", name(cuMemHostRegister(p, 8192, 0)));
    printf("cuMemFreeHost on registered: %s\n", name(cuMemFreeHost(p)));
    printf("cuMemHostUnregister: %s\n", name(cuMemHostUnregister(p)));
    // A second context, destroyed while current here, then made current in another thread.
    CUcontext second;
    cuCtxCreate(&second, NULL, 0, dev);
    shared_ctx = second;
    printf("cuCtxDestroy of current: %s\n", name(cuCtxDestroy(second)));
    pthread_t t;
    pthread_create(&t, NULL, other_thread, NULL);
    pthread_join(t, NULL);
    // The fault comes last: it leaves the context unusable for every call after it.
    cuCtxSetCurrent(ctx);
    CUmodule m2;
    CUfunction f;
    CUdeviceptr buf;
    cuModuleLoadData(&m2, MISALIGNED);
    cuModuleGetFunction(&f, m2, "m");
    cuMemAlloc(&buf, 64);
    void *args[] = {&buf};
    printf("misaligned launch: %s\n", name(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, args, 0)));
    printf("misaligned synchronise: %s\n", name(cuCtxSynchronize()));
    return 0;
}
