/* What NVIDIA's driver answers about pointers: cuPointerGetAttribute, cuPointerGetAttributes and
 * cuMemGetAddressRange on device, page-locked, registered, managed and ordinary host memory, at
 * the start, inside and one past the end of each block, and on null. The simulated driver's
 * answers (driver/src/pointers.rs) follow these. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

static const int attrs[] = {1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18};

static void ask(const char *what, CUdeviceptr p) {
    printf("%s:", what);
    for (unsigned i = 0; i < sizeof attrs / sizeof attrs[0]; ++i) {
        unsigned long long v[2] = {0xdeadbeefULL, 0};
        CUresult r = cuPointerGetAttribute(v, attrs[i], p);
        if (r == CUDA_SUCCESS) printf(" %d=ok:%llx", attrs[i], v[0]);
        else printf(" %d=err%d", attrs[i], r);
    }
    CUpointer_attribute all[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    unsigned mt = 77; int managed = 77; int ord = 77;
    void *data[3] = {&mt, &managed, &ord};
    CUresult r = cuPointerGetAttributes(3, all, data, p);
    printf(" | getattrs=%d type=%u managed=%d ordinal=%d", r, mt, managed, ord);
    CUdeviceptr base = 0x1234; size_t size = 0x5678;
    r = cuMemGetAddressRange(&base, &size, p);
    printf(" | range=%d", r);
    if (r == CUDA_SUCCESS) printf(" base+%lld size=%zu", (long long)(base - p), size);
    printf("\n");
}

/* How many bytes each attribute writes: a buffer of 0xAA, then its bytes after the answer. */
static void widths(CUdeviceptr p) {
    for (unsigned i = 0; i < sizeof attrs / sizeof attrs[0]; ++i) {
        unsigned char buf[16];
        for (int b = 0; b < 16; ++b) buf[b] = 0xAA;
        if (cuPointerGetAttribute(buf, attrs[i], p) != CUDA_SUCCESS) continue;
        int written = 16;
        while (written > 0 && buf[written - 1] == 0xAA) --written;
        printf("width %d: %d bytes\n", attrs[i], written);
    }
}

int main(void) {
    CUdevice dev; CUcontext ctx;
    cuInit(0); cuDeviceGet(&dev, 0); cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
    printf("context=%llx\n", (unsigned long long)(size_t)ctx);
    CUdeviceptr d; cuMemAlloc(&d, 1000);
    ask("device start", d); ask("device inside", d + 500); ask("device one past", d + 1000);
    void *h; cuMemAllocHost(&h, 1000);
    ask("allochost start", (CUdeviceptr)h); ask("allochost inside", (CUdeviceptr)h + 500);
    void *hm; cuMemHostAlloc(&hm, 1000, CU_MEMHOSTALLOC_DEVICEMAP);
    ask("hostalloc mapped", (CUdeviceptr)hm);
    void *reg = aligned_alloc(4096, 8192); cuMemHostRegister(reg, 8192, 0);
    ask("registered", (CUdeviceptr)reg + 100);
    CUdeviceptr m; cuMemAllocManaged(&m, 1000, CU_MEM_ATTACH_GLOBAL);
    ask("managed", m + 10);
    widths(m + 10);
    void *plain = malloc(1000);
    ask("plain host", (CUdeviceptr)plain);
    ask("null", 0);
    cuMemFree(d);
    ask("device freed", d);
    return 0;
}
